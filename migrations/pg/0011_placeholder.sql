-- PLACEHOLDER (i31-swiss): stands for another helper's migration pg/0011 so that 0013 applies; the lead drops it at merge.
SELECT 1;
