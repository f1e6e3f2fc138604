-- pg/0013_placeholder.sql - a placeholder for the bot accounts' migration
-- (branch i27-bot), so that the moderators' 0014 can be tested alone. The
-- lead renumbers at the merge.
SELECT 1;
