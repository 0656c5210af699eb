-- Import jobs' heartbeat: the twin of sqlite/migration/0037_import_jobs_beat.sql.
ALTER TABLE import_jobs ADD COLUMN beat_at BIGINT NOT NULL DEFAULT 0;
