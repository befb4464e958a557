-- A job ended by the server rather than by its result: why ('connection_changed'), so that a
-- result of it that still comes back is refused with that code.
ALTER TABLE optimization_jobs ADD COLUMN cancel_reason TEXT;
