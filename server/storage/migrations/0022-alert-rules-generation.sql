-- A change counter for alert_rules (see 0006): alert evaluation keeps the enabled rules indexed in
-- memory (server/alerts/alert-rule-index.ts) and reloads them when any connection writes the table,
-- a foreign key's cascade included.
INSERT INTO table_generations (name, generation) VALUES ('alert_rules', 0);

CREATE TRIGGER alert_rules_insert_moves_alert_rules AFTER INSERT ON alert_rules
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'alert_rules'; END;
CREATE TRIGGER alert_rules_update_moves_alert_rules AFTER UPDATE ON alert_rules
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'alert_rules'; END;
CREATE TRIGGER alert_rules_delete_moves_alert_rules AFTER DELETE ON alert_rules
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'alert_rules'; END;
