-- pg/0010_reserved.sql - a placeholder for another branch's migration
-- (i27-stream), so that 0011 follows without a gap on this branch alone.
-- Dropped at the merge, where that branch's 0010 takes its place.
SELECT 1;
