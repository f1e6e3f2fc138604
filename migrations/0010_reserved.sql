-- 0010_reserved.sql - a placeholder: number 0010 is reserved for another
-- branch (API tokens) of this session, and the embedder wants no gaps.
-- The merge replaces this file with that branch's migration.
SELECT 1;
