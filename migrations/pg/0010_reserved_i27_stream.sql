-- pg/0010_reserved_i27_stream.sql - PLACEHOLDER for another branch's migration (the
-- embedder refuses gaps): the merge replaces it with that branch's file.
SELECT 1;
