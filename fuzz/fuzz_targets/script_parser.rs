//! Fuzzes the table-script parser and replay: any bytes, read as UTF-8
//! (lossily), either fail to load with a located error or load and replay.
//! Any panic is a bug.

#![no_main]

use arbiter::replay::replay;
use arbiter::script::Script;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(script) = Script::parse("fuzz.toml", &text) {
        let _ = replay(&script);
    }
});
