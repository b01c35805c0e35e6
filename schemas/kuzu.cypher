// graphmem storage DDL, schema version 4
CREATE NODE TABLE IF NOT EXISTS Meta(key STRING PRIMARY KEY, value STRING);
CREATE NODE TABLE IF NOT EXISTS Entity(id STRING PRIMARY KEY, name STRING, kind STRING, aliases STRING[]);
CREATE NODE TABLE IF NOT EXISTS Predicate(name STRING PRIMARY KEY, cardinality STRING, aliases STRING[], inverse STRING, symmetric BOOLEAN, description STRING);
CREATE NODE TABLE IF NOT EXISTS Session(id STRING PRIMARY KEY, started_at TIMESTAMP, ended_at TIMESTAMP, title STRING, text STRING, summary STRING, source STRING, recorded_at TIMESTAMP, scope STRING);
CREATE NODE TABLE IF NOT EXISTS SessionLine(id STRING PRIMARY KEY, session STRING, n INT64, speaker STRING, text STRING, terms STRING, started_at TIMESTAMP, recorded_at TIMESTAMP);
CREATE NODE TABLE IF NOT EXISTS Audit(id STRING PRIMARY KEY, at TIMESTAMP, action STRING, detail STRING);
CREATE REL TABLE IF NOT EXISTS Fact(FROM Entity TO Entity, fid STRING, predicate STRING, object STRING, valid_from TIMESTAMP, valid_to TIMESTAMP, recorded_at TIMESTAMP, expired_at TIMESTAMP, statement STRING, kind STRING, importance DOUBLE, confidence DOUBLE, source STRING, source_ref STRING, superseded_by STRING, reason STRING, access_count INT64, last_accessed_at TIMESTAMP, pinned BOOLEAN, source_type STRING, scope STRING);
CREATE REL TABLE IF NOT EXISTS MENTIONS(FROM Session TO Entity, count INT64);
