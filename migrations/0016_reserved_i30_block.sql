-- 0016_reserved_i30_block.sql - PLACEHOLDER for another branch's migration (the embedder
-- refuses gaps): the merge replaces it with that branch's file.
SELECT 1;
