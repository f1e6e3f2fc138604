-- 0011_reserved.sql - a placeholder: number 0011 is reserved for another
-- branch (chat rooms) of this session, and the embedder wants no gaps.
-- The merge replaces this file with that branch's migration.
SELECT 1;
