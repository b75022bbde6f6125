-- A session may run another model (and reasoning effort) than its profile's: chosen in the
-- composer, applied from the next run on (issue 24). NULL: the profile's.
ALTER TABLE sessions ADD COLUMN model_override TEXT;
ALTER TABLE sessions ADD COLUMN effort_override TEXT;
