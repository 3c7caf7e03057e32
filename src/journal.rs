//! The game journal: every observation and event, appended and flushed as it
//! happens, so that a game survives a crash.
