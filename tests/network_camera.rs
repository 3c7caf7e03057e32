//! A phone as the camera: `--input camera:http://…` reads an MJPEG stream
//! (`multipart/x-mixed-replace`), as phone camera apps and IP cameras
//! serve it. A loopback server here stands in for the phone: it serves the
//! recorded demo's frames at 15 frames a second, stalls, drops, and sends
//! the broken streams a network brings; the game's events must stay the
//! script's, and every trouble must be said, never a panic or a hang.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter::script::Script;

const RECORDING: &str = "fixtures/recordings/demo";

/// The phone's frame rate.
const FPS: f64 = 15.0;

/// The recording was filmed at 10 frames a second.
const RECORDED_FPS: f64 = 10.0;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The recording's frames, as JPEG bytes, in order.
fn frames() -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join(RECORDING))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jpg"))
        .collect();
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// What the stand-in phone does, frame by frame of what it sends.
#[derive(Clone, Default)]
struct Plan {
    /// Sent frames after which the stream pauses, and for how long.
    stalls: Vec<(usize, Duration)>,
    /// Sent frames after which the connection is cut (the phone's Wi-Fi
    /// drops); the next connection goes on where the scene was.
    drops: Vec<usize>,
    /// Sent frames cut to half their bytes (a torn JPEG).
    torn_every: Option<usize>,
    /// Sent frames after which a 100 MB part begins.
    huge_part_after: Option<usize>,
    /// Parts written without a length, framed by the boundary alone.
    no_length: bool,
    /// The delimiter written with the parameter's dashes (`----b`).
    dashed_boundary: bool,
    /// The `Authorization` header the phone asks for (a login set in the
    /// app); a request without it is answered 401.
    login: Option<&'static str>,
}

/// A loopback MJPEG server serving the recording by `plan`. The scene's
/// clock only runs while frames are sent: a stall or a drop loses the
/// time, not the moves (as a real table waits for a phone that dropped).
struct Phone {
    port: u16,
    /// Connections accepted.
    connections: Arc<AtomicUsize>,
}

impl Phone {
    fn start(plan: Plan) -> Phone {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let sent = Arc::new(Mutex::new(0usize));
        let frames = Arc::new(frames());
        let counter = connections.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { return };
                counter.fetch_add(1, Ordering::SeqCst);
                let (plan, sent, frames) = (plan.clone(), sent.clone(), frames.clone());
                std::thread::spawn(move || {
                    let _ = serve(conn, &plan, &sent, &frames);
                });
            }
        });
        Phone { port, connections }
    }

    fn url(&self) -> String {
        format!("camera:http://127.0.0.1:{}/video", self.port)
    }
}

/// Reads a request's head, up to its empty line: its lines.
fn read_request(conn: &TcpStream) -> std::io::Result<Vec<String>> {
    let mut r = BufReader::new(conn);
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        if r.read_line(&mut line)? == 0 || line == "\r\n" {
            return Ok(lines);
        }
        lines.push(line.trim_end().to_string());
    }
}

fn serve(
    mut conn: TcpStream,
    plan: &Plan,
    sent: &Mutex<usize>,
    frames: &[Vec<u8>],
) -> std::io::Result<()> {
    let request = read_request(&conn)?;
    if let Some(want) = plan.login
        && !request
            .iter()
            .any(|l| l.eq_ignore_ascii_case(&format!("authorization: {want}")))
    {
        // As IP Webcam answers with a login set.
        return write!(
            conn,
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"IP Webcam\"\r\nContent-Length: 0\r\n\r\n"
        );
    }
    let boundary = if plan.dashed_boundary {
        "--frame"
    } else {
        "frame"
    };
    write!(
        conn,
        "HTTP/1.1 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary={boundary}\r\nCache-Control: no-cache\r\n\r\n"
    )?;
    let mut here = 0usize;
    let mut due = Instant::now();
    loop {
        let n = *sent.lock().unwrap();
        // The scene at this sent frame: the recording's frame of that time.
        let index = (n as f64 * RECORDED_FPS / FPS) as usize;
        let Some(jpeg) = frames.get(index) else {
            // The scene is over: the close delimiter ends the stream.
            write!(conn, "\r\n--{boundary}--\r\n")?;
            return Ok(());
        };
        if plan.huge_part_after == Some(n) && here > 0 {
            write!(
                conn,
                "--{boundary}\r\nContent-Type: image/jpeg\r\nContent-Length: {}\r\n\r\n",
                100 << 20
            )?;
            // Its first megabytes, then the phone gives up on it.
            conn.write_all(&vec![0xAB; 4 << 20])?;
            return Ok(());
        }
        let mut part: &[u8] = jpeg;
        if plan.torn_every.is_some_and(|k| n % k == k - 1) {
            part = &jpeg[..jpeg.len() / 2];
        }
        if plan.no_length {
            write!(conn, "--{boundary}\r\nContent-Type: image/jpeg\r\n\r\n")?;
        } else {
            write!(
                conn,
                "--{boundary}\r\nContent-Type: image/jpeg\r\nContent-Length: {}\r\n\r\n",
                part.len()
            )?;
        }
        conn.write_all(part)?;
        conn.write_all(b"\r\n")?;
        conn.flush()?;
        *sent.lock().unwrap() += 1;
        here += 1;
        let n = n + 1;
        if let Some((_, pause)) = plan.stalls.iter().find(|(at, _)| *at == n) {
            std::thread::sleep(*pause);
        }
        if plan.drops.contains(&n) {
            // Cut mid-stream: no delimiter, the socket simply closes.
            let _ = conn.shutdown(std::net::Shutdown::Both);
            return Ok(());
        }
        // Paced as a camera is, one frame every 1/15 s; after a pause it
        // goes on from now, with no burst to catch up.
        due =
            due.max(Instant::now() - Duration::from_millis(5)) + Duration::from_secs_f64(1.0 / FPS);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
}

/// `arbiter watch` on `input` with the recording's setup, killed if it
/// runs past `limit` (a hang is a failure, not a stuck suite).
fn watch(input: &str, extra: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(root())
        .args(["watch", "--input", input, "--setup"])
        .arg(Path::new(RECORDING).join("game.toml"))
        .arg("--json")
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + limit;
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "watch {input} ran past {limit:?}:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn script() -> Script {
    Script::load(&root().join(RECORDING).join("game.toml")).unwrap()
}

/// The run ended well and its events are the script's.
fn refereed_as_scripted(out: &Output, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{what}: {stderr}");
    common::same_events_as_script(&script(), &String::from_utf8_lossy(&out.stdout), what);
    stderr
}

#[test]
fn a_phones_stream_referees_the_demo_to_its_scripts_events() {
    let phone = Phone::start(Plan::default());
    let out = watch(&phone.url(), &[], Duration::from_secs(60));
    let stderr = refereed_as_scripted(&out, "the phone's stream");
    assert_eq!(phone.connections.load(Ordering::SeqCst), 1, "{stderr}");
}

/// A phone app with a login set: without it, or with a wrong one, the
/// input fails at once saying so; with it, the game is refereed. The
/// password is in nothing arbiter writes: not its events, its messages,
/// its journal.
#[test]
fn a_camera_with_a_login_is_read_with_the_one_in_the_address() {
    // "p@ss word", percent-encoded in the address as a URL writes it.
    let phone = Phone::start(Plan {
        login: Some("Basic YWRtaW46cEBzcyB3b3Jk"),
        ..Plan::default()
    });
    let port = phone.port;
    for (input, says) in [
        (
            format!("camera:http://127.0.0.1:{port}/video"),
            "asks for a login: give it in the address",
        ),
        (
            format!("camera:http://admin:guess@127.0.0.1:{port}/video"),
            "refused the login in the address (user \"admin\")",
        ),
    ] {
        let out = watch(&input, &[], Duration::from_secs(30));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{input}: {stderr}");
        assert!(stderr.contains(says), "{input}: {stderr}");
        assert!(!stderr.contains("guess"), "the password said: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    }
    let journal = std::env::temp_dir().join(format!("arbiter-login-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&journal);
    let out = watch(
        &format!("camera:http://admin:p%40ss%20word@127.0.0.1:{port}/video"),
        &[
            "--journal",
            journal.to_str().unwrap(),
            "--log-level",
            "debug",
        ],
        Duration::from_secs(60),
    );
    let stderr = refereed_as_scripted(&out, "a camera with a login");
    let written = std::fs::read_to_string(&journal).unwrap();
    let _ = std::fs::remove_file(&journal);
    for (what, text) in [
        ("stderr", stderr.as_str()),
        ("stdout", &String::from_utf8_lossy(&out.stdout)),
        ("the journal", written.as_str()),
    ] {
        assert!(
            !text.contains("word") && !text.contains("YWRtaW46"),
            "the password is in {what}: {text}"
        );
    }
    assert_eq!(phone.connections.load(Ordering::SeqCst), 3, "{stderr}");
}

#[test]
fn parts_framed_by_the_boundary_alone_or_written_with_its_dashes_read_the_same() {
    for plan in [
        Plan {
            no_length: true,
            ..Plan::default()
        },
        Plan {
            dashed_boundary: true,
            ..Plan::default()
        },
    ] {
        let phone = Phone::start(plan);
        let out = watch(&phone.url(), &[], Duration::from_secs(60));
        refereed_as_scripted(&out, "an unusual stream");
    }
}

#[test]
fn a_stream_that_stalls_and_drops_is_waited_for_and_taken_up_again() {
    // A 4 s pause (the stall is said at 3 s), then, later, two cuts.
    let phone = Phone::start(Plan {
        stalls: vec![(30, Duration::from_secs(4))],
        drops: vec![60, 100],
        ..Plan::default()
    });
    let journal = std::env::temp_dir().join(format!("arbiter-phone-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&journal);
    let out = watch(
        &phone.url(),
        &["--journal", journal.to_str().unwrap()],
        Duration::from_secs(90),
    );
    let stderr = refereed_as_scripted(&out, "a stalling, dropping stream");
    assert!(stderr.contains("stalled: no frame for 3 s"), "{stderr}");
    assert_eq!(
        stderr.matches("no frame for 3 s").count(),
        1,
        "a stall is said once: {stderr}"
    );
    assert!(stderr.contains("frames again"), "{stderr}");
    // Said after the input's name, once: "arbiter: camera:http://…/video:
    // reconnecting: the stream ended".
    let url = phone.url();
    assert!(
        stderr.contains(&format!("{url}: reconnecting: the stream")),
        "{stderr}"
    );
    assert!(
        !stderr.contains(&format!("reconnecting: {url}")),
        "{stderr}"
    );
    assert!(stderr.contains("reconnected"), "{stderr}");
    assert_eq!(phone.connections.load(Ordering::SeqCst), 3, "{stderr}");
    // Nothing lost: the journal holds every event printed.
    let printed: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let journaled: Vec<serde_json::Value> = std::fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v.get("event").is_some())
        .collect();
    assert_eq!(journaled, printed);
    let _ = std::fs::remove_file(&journal);
}

#[test]
fn torn_frames_and_a_100_mb_part_are_said_and_the_game_goes_on() {
    let phone = Phone::start(Plan {
        torn_every: Some(9),
        huge_part_after: Some(40),
        ..Plan::default()
    });
    let out = watch(&phone.url(), &[], Duration::from_secs(90));
    let stderr = refereed_as_scripted(&out, "torn frames and a huge part");
    assert!(stderr.contains("not a whole JPEG frame"), "{stderr}");
    // Named by its number after the input's name, the address said once.
    let torn = stderr
        .lines()
        .find(|l| l.contains("not a whole JPEG frame"))
        .unwrap();
    assert_eq!(torn.matches("127.0.0.1").count(), 1, "{torn}");
    assert!(torn.contains(": frame #"), "{torn}");
    assert!(
        stderr.contains("a part of 100 MB is no camera frame"),
        "{stderr}"
    );
    assert_eq!(phone.connections.load(Ordering::SeqCst), 2, "{stderr}");
}

/// A server that answers, but not with a camera's stream.
fn answering(head: &'static str) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            if read_request(&conn).is_ok() && !head.is_empty() {
                let _ = conn.write_all(head.as_bytes());
            }
            // Held open (a server that sends nothing), then dropped.
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_secs(20));
                drop(conn);
            });
        }
    });
    port
}

#[test]
fn what_is_not_a_cameras_stream_fails_at_once_naming_the_address() {
    let silent = answering("");
    let html = answering("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html></html>");
    let no_boundary =
        answering("HTTP/1.1 200 OK\r\nContent-Type: multipart/x-mixed-replace\r\n\r\n");
    let missing = answering("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let nobody = closed.local_addr().unwrap().port();
    drop(closed);
    for (port, says, within) in [
        (html, "not a camera's stream", 5),
        (no_boundary, "names no boundary", 5),
        (missing, "answered 404", 5),
        (nobody, "nothing listens at", 5),
        (silent, "answered nothing in 5 s", 12),
    ] {
        let input = format!("camera:http://127.0.0.1:{port}/video");
        let t = Instant::now();
        let out = watch(&input, &[], Duration::from_secs(30));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{input}: {stderr}");
        assert!(stderr.contains(&format!("127.0.0.1:{port}")), "{stderr}");
        assert!(stderr.contains(says), "{input}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
        assert!(
            out.stdout.is_empty(),
            "no game began: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            t.elapsed() < Duration::from_secs(within),
            "{input}: {:?}",
            t.elapsed()
        );
    }
    // An address that is not one is refused by the argument's parser.
    let out = watch(
        "camera:https://127.0.0.1/video",
        &[],
        Duration::from_secs(10),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("only http:// streams"), "{stderr}");
}
