-- A battle log (LMArena schema: model_a, model_b, winner) reduced to the counts table
-- `verdict rank` reads: one row per ordered pair, with the wins of each side and the
-- ties. Bradley–Terry, its bootstrap and the maximal lottery read nothing else, so the
-- leaderboard from this table equals the leaderboard from the log, bootstrap included.
--
-- Standard SQL: runs unchanged on DuckDB, DataFusion/Ballista, Apache Spark SQL,
-- PostgreSQL. Replace `battles` with the log's table (DuckDB:
-- read_parquet('logs/*.parquet', hive_partitioning = true); Spark: a view over the
-- Parquet directory). Filters go in a WHERE clause. Both orientations of a pair may
-- appear as separate rows; verdict adds them up. Labels other than the four below are
-- refused by verdict in a raw log; here they would be dropped, so the query counts
-- them in `unknown`, which must be 0 (verdict ignores the column). Rows where a model
-- meets itself are dropped, as `--skip-self-battles` does.
SELECT
    model_a,
    model_b,
    SUM(CASE WHEN winner = 'model_a' THEN 1 ELSE 0 END) AS wins_a,
    SUM(CASE WHEN winner = 'model_b' THEN 1 ELSE 0 END) AS wins_b,
    SUM(CASE WHEN winner IN ('tie', 'tie (bothbad)') THEN 1 ELSE 0 END) AS ties,
    SUM(CASE WHEN winner IN ('model_a', 'model_b', 'tie', 'tie (bothbad)') THEN 0 ELSE 1 END) AS unknown
FROM battles
WHERE model_a <> model_b
GROUP BY model_a, model_b
ORDER BY model_a, model_b
