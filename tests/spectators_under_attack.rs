//! The spectator page on a club's network: strangers cannot take the game
//! down (issue 58). The recorded demo game is refereed from its frames by
//! `arbiter watch --serve`, run with an open-file limit of 1,024 as most
//! machines set it, while this test opens 2,000 connections that never
//! finish their request headers (from 127.0.0.2) and 200 event-stream
//! clients that never read (from 127.0.0.3). Throughout, a well-behaved
//! browser (127.0.0.1) gets the page within a second; at the end the game's
//! events are its script's, every one of them journaled, and the input
//! never failed.
#![cfg(target_os = "linux")]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use arbiter::script::Script;
use socket2::{Domain, SockAddr, Socket, Type};

const HALF_OPEN: usize = 2000;
const NEVER_READ: usize = 200;

/// A connection to `server` from `source` (any port).
fn connect_from(source: &str, server: SocketAddr, recv_buffer: Option<usize>) -> Option<TcpStream> {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).ok()?;
    if let Some(n) = recv_buffer {
        socket.set_recv_buffer_size(n).ok()?;
    }
    let from: SocketAddr = format!("{source}:0").parse().ok()?;
    socket.bind(&SockAddr::from(from)).ok()?;
    socket
        .connect_timeout(&SockAddr::from(server), Duration::from_secs(2))
        .ok()?;
    Some(socket.into())
}

/// GET / as a browser would; the time it took, or why it failed.
fn fetch_page(server: SocketAddr) -> Result<Duration, String> {
    let t = Instant::now();
    let mut s = TcpStream::connect_timeout(&server, Duration::from_secs(3))
        .map_err(|e| format!("connect: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nHost: arbiter\r\nConnection: close\r\n\r\n")
        .map_err(|e| format!("write: {e}"))?;
    let mut body = String::new();
    s.read_to_string(&mut body)
        .map_err(|e| format!("read: {e}"))?;
    if !body.starts_with("HTTP/1.1 200") || !body.contains("</html>") {
        return Err(format!("not the page: {:?}", &body[..body.len().min(80)]));
    }
    Ok(t.elapsed())
}

#[test]
fn strangers_cannot_take_the_game_down() {
    // This test's own sockets: 2,200 and more, above a usual soft limit.
    let hard = common::raise_open_file_limit(8192);
    assert!(
        hard >= 3000,
        "this test needs 3,000 open files; the hard limit is {hard}"
    );

    let dir = Path::new("fixtures/recordings/demo");
    let script = Script::load(&dir.join("game.toml")).unwrap();
    let journal =
        std::env::temp_dir().join(format!("arbiter-test-attack-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&journal);
    let mut child = Command::new("sh")
        .args([
            "-c",
            "ulimit -n 1024 && exec \"$0\" \"$@\"",
            env!("CARGO_BIN_EXE_arbiter"),
            "watch",
            "--input",
            &format!("frames:{}", dir.display()),
            "--realtime",
            "--serve",
            "127.0.0.1:0",
            "--journal",
            journal.to_str().unwrap(),
            "--json",
            "--log-level",
            "info",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        BufReader::new(stdout).read_to_string(&mut s).unwrap();
        s
    });
    let (said, heard) = mpsc::channel::<String>();
    let stderr = child.stderr.take().unwrap();
    let err = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = said.send(line.clone());
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    let server: SocketAddr = loop {
        let line = heard
            .recv_timeout(Duration::from_secs(60))
            .expect("arbiter says where the page is");
        if let Some(at) = line.split("http://").nth(1) {
            break at
                .trim_end_matches('/')
                .split('/')
                .next()
                .unwrap()
                .parse()
                .unwrap();
        }
    };

    let stop = Arc::new(AtomicBool::new(false));
    // 2,000 connections that send half a request and never finish it.
    let half_open = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            let mut connected = 0;
            for _ in 0..HALF_OPEN {
                if let Some(mut s) = connect_from("127.0.0.2", server, None) {
                    connected += 1;
                    let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: arb");
                    held.push(s);
                }
            }
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
            }
            connected
        })
    };
    // 200 event-stream clients that never read, with small buffers.
    let never_read = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for _ in 0..NEVER_READ {
                if let Some(mut s) = connect_from("127.0.0.3", server, Some(4096)) {
                    let _ = s.write_all(b"GET /events HTTP/1.1\r\nHost: arbiter\r\n\r\n");
                    held.push(s);
                }
            }
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
            }
            held.len()
        })
    };

    // A browser at the table's side, every quarter second, until the game
    // ends.
    let mut worst = Duration::ZERO;
    let mut fetched = 0;
    let mut failures = Vec::new();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        match fetch_page(server) {
            Ok(t) => {
                worst = worst.max(t);
                fetched += 1;
            }
            // The game may end (and its server with it) while we ask.
            Err(e) if child.try_wait().unwrap().is_none() => failures.push(e),
            Err(_) => {}
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    stop.store(true, Ordering::Relaxed);
    let connected = half_open.join().unwrap();
    let streams = never_read.join().unwrap();
    let stdout = out.join().unwrap();
    let stderr = err.join().unwrap();
    println!(
        "{connected} half-open connected, {streams} never-reading streams; the page fetched {fetched} times, at worst in {worst:?}"
    );
    assert!(status.success(), "arbiter failed: {stderr}");
    assert!(
        !stderr.contains("Too many open files"),
        "the game ran out of files: {stderr}"
    );
    assert!(failures.is_empty(), "the page failed: {failures:?}");
    assert!(fetched >= 5, "the game was too short to test ({fetched})");
    assert!(worst < Duration::from_secs(1), "the page took {worst:?}");
    assert!(
        stderr.contains("connection(s) refused"),
        "refusals are logged: {stderr}"
    );
    common::same_events_as_script(&script, &stdout, "the recorded demo under attack");
    // Every event printed is journaled, in order, and the input's end.
    let journaled: Vec<serde_json::Value> = std::fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .collect();
    let events: Vec<&serde_json::Value> = journaled
        .iter()
        .filter(|v| v.get("event").is_some())
        .collect();
    let printed: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.len(), printed.len(), "every event journaled");
    assert!(events.iter().zip(&printed).all(|(j, p)| *j == p));
    assert!(journaled.iter().any(|v| v.get("finish").is_some()));
    let _ = std::fs::remove_file(&journal);
}
