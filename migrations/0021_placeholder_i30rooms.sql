-- 0021: a placeholder of branch i30-rooms (another branch's number; the lead drops it at the merge).
SELECT 1;
