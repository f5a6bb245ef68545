// Package clickhouse is the analytics sink and the checklist analytics
// queries on ClickHouse, through clickhouse-go/v2's native protocol.
//
// Tables are ReplacingMergeTree keyed by what identifies a fact (an
// analysis and question; a status event), so a redelivered batch leaves one
// row per key once merged, and queries read with FINAL.
//
// The DDL and queries run on Debian's ClickHouse 18.16 (what `make test`
// starts) as well as on current releases: no DateTime64 (a DateTime plus a
// milliseconds column instead), no LowCardinality (18.16 needs an
// experimental setting for it), explicit column lists in every INSERT, and
// times bound as unix seconds.
package clickhouse
