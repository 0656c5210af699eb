-- Import jobs' heartbeat (docs/api.md section 25): beat_at is when the
-- process running a job last said it is alive (Unix milliseconds; every
-- transfer.BeatInterval and with every batch). A RUNNING job whose beat is
-- older than transfer.StaleAfter was left by a process that stopped
-- without ending it (killed, crashed): it is marked FAILED, `interrupted`.
-- Jobs from before this column have 0: any still RUNNING is such a job.
ALTER TABLE import_jobs ADD COLUMN beat_at INTEGER NOT NULL DEFAULT 0;
