-- PLACEHOLDER (i31-swiss): stands for another helper's migration 0015 so that 0018 applies; the lead drops it at merge.
SELECT 1;
