-- 0015_reserved.sql - a placeholder for another branch's migration
-- (i27-stream), so that 0016 follows without a gap on this branch alone.
-- Dropped at the merge, where that branch's 0015 takes its place.
SELECT 1;
