-- What each remote agent last reported of its spool behind the batch it sent: how many batches
-- wait, and when the oldest of them was appended (in the server's clock: receipt time minus the
-- age the agent reported). NULL until an agent reports them (agents before this report neither).
ALTER TABLE agents ADD COLUMN spool_batches INTEGER;
ALTER TABLE agents ADD COLUMN spool_oldest_batch_at TEXT;
