//! How long from the first frame in which a move's last card lies still to
//! the referee's verdict in the event stream: a whole game filmed by the
//! scene renderer, replayed in real time through the camera input
//! (`frames:DIR --realtime`, the default settle time) and the referee, on
//! each surface named. Run from the repository root:
//!
//! `cargo run --release --example latency [-- OPTIONS]`
//!
//! - `--script FILE`: the game (default the En Prise demo).
//! - `--surface NAME,...`: the tables (default `felt,light-wood,white`).
//! - `--fps N`: the camera's frame rate (default 15).
//! - `--settle-ms MS`: the settle time (default the camera's).
//! - `--whole`: every changed frame read whole, as a photo (not only the
//!   cards that changed since the table lay still), to measure what that
//!   saves.
//! - `--keep DIR`: keep each surface's frames in `DIR/<surface>/` (to
//!   read one again with `arbiter recognise`).
//! - `--via frames,http`: how the frames reach arbiter (default both, a
//!   row each): `frames` replays the folder (`frames:DIR --realtime`);
//!   `http` serves the same frames at the same rate from a loopback MJPEG
//!   server, as a phone's camera app does (`camera:http://…`), so the two
//!   rows differ by what the network input costs.
//! - `--deck NAME`: the deck filmed (default `coded`, the printable deck
//!   read by its codes; `printed` is the deck printed before the codes;
//!   `stand-in`, `letters`, `silhouette`, `outline` are learned from their
//!   faces in `fixtures/decks/`, as `arbiter deck learn` would).
//!
//! For each surface it prints how many of the filmed tables were read as
//! filmed, how many of those the referee judged (a step that causes no
//! event, such as the camera nudged, has no latency), and the latency's
//! median, 95th percentile and worst over those; and the flags raised
//! against those the script's own replay raises (more is a false alarm).
//! `SHOW=1` prints each table read as no filmed one, and every flag.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter::headless::run_live;
use arbiter::input::live::{Live, LiveEvent};
use arbiter::input::vision::{CameraInput, VisionConfig, open};
use arbiter::observation::Observation;
use arbiter::script::Script;
use arbiter::table::Table;
use arbiter::vision::templates::DeckModel;
use arbiter_testkit::fixtures::FixtureDeck;
use arbiter_testkit::record::{Filming, film};
use arbiter_testkit::scene::surface::{Surface, SurfaceKind};
use arbiter_testkit::scene::{SceneParams, felt, render};

/// Each line written, with when it was written.
#[derive(Clone, Default)]
struct Stamped {
    lines: Arc<Mutex<Vec<(Instant, String)>>>,
    partial: Vec<u8>,
}

impl Write for Stamped {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for &b in buf {
            if b == b'\n' {
                let line = String::from_utf8_lossy(&self.partial).into_owned();
                self.partial.clear();
                if let Ok(mut l) = self.lines.lock() {
                    l.push((Instant::now(), line));
                }
            } else {
                self.partial.push(b);
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

struct Options {
    script: PathBuf,
    surfaces: Vec<String>,
    fps: f32,
    settle: Duration,
    keep: Option<PathBuf>,
    whole: bool,
    deck: FixtureDeck,
    via: Vec<String>,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        script: PathBuf::from("fixtures/scenarios/enprise/demo.toml"),
        surfaces: ["felt", "light-wood", "white"].map(String::from).to_vec(),
        fps: 15.0,
        settle: VisionConfig::default().settle,
        keep: None,
        whole: false,
        deck: FixtureDeck::Coded,
        via: vec!["frames".into(), "http".into()],
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} wants a value"));
        match a.as_str() {
            "--script" => o.script = PathBuf::from(value()?),
            "--surface" => o.surfaces = value()?.split(',').map(String::from).collect(),
            "--fps" => o.fps = value()?.parse().map_err(|e| format!("--fps: {e}"))?,
            "--settle-ms" => {
                let ms: u64 = value()?.parse().map_err(|e| format!("--settle-ms: {e}"))?;
                o.settle = Duration::from_millis(ms);
            }
            "--whole" => o.whole = true,
            "--via" => o.via = value()?.split(',').map(String::from).collect(),
            "--keep" => o.keep = Some(PathBuf::from(value()?)),
            "--deck" => {
                let name = value()?;
                o.deck = FixtureDeck::from_name(name).ok_or(format!("--deck: no deck {name}"))?;
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(o)
}

fn surface_kind(name: &str) -> Result<SurfaceKind, String> {
    SurfaceKind::ALL
        .into_iter()
        .find(|k| k.name() == name)
        .ok_or_else(|| {
            let names: Vec<&str> = SurfaceKind::ALL.iter().map(|k| k.name()).collect();
            format!("no surface {name}: one of {}", names.join(", "))
        })
}

fn main() -> Result<(), String> {
    let o = options()?;
    let script = Script::load(&o.script).map_err(|e| e.to_string())?;
    // Still long enough for the settle time and the reads after it.
    let still = ((o.settle.as_secs_f32() + 1.0) * o.fps).ceil() as usize;
    let how = Filming {
        still,
        hand: 3,
        ..Filming::default()
    };
    println!(
        "{}: {} fps, settle {} ms, {still} still frames a move",
        o.script.display(),
        o.fps,
        o.settle.as_millis()
    );
    println!("surface      via     tables  read  judged  median     p95   worst  flags (script's)");
    for name in &o.surfaces {
        let kind = surface_kind(name)?;
        let mut frames = film(&script, &how);
        for (_, p) in &mut frames {
            p.look.surface = Some(Surface::random(kind, p.pitch_px, 11));
        }
        let dir = match &o.keep {
            Some(keep) => keep.join(name),
            None => std::env::temp_dir().join(format!("arbiter-latency-{}", std::process::id())),
        };
        let _ = std::fs::remove_dir_all(&dir);
        write_frames(&dir, &frames, o.deck).map_err(|e| format!("{}: {e}", dir.display()))?;
        for via in &o.via {
            let measured = measure(&script, &dir, &frames, &o, via)?;
            print_row(name, via, &measured);
        }
        if o.keep.is_none() {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    Ok(())
}

/// Writes the frames as a recording, `NNNN.jpg` in `dir`, each with its
/// own sensor noise: a still table flickers as a webcam's does.
fn write_frames(dir: &Path, frames: &[(Table, SceneParams)], deck: FixtureDeck) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let cloth = felt(256, frames.first().map_or(0, |f| f.1.seed));
    for (n, (table, params)) in frames.iter().enumerate() {
        let params = SceneParams {
            frame: n as u64 + 1,
            ..params.clone()
        };
        let scene = render(table, &params, &|c| deck.image(c), &cloth);
        let path = dir.join(format!("{n:04}.jpg"));
        match scene.jpeg {
            Some(bytes) => std::fs::write(path, bytes)?,
            None => scene.image.save(path).map_err(io::Error::other)?,
        }
    }
    Ok(())
}

/// What one replay measured.
struct Measured {
    /// Each filmed table's latency: `None` where it was not read as
    /// filmed, or its step caused no event (a table the referee waits on,
    /// such as a camera nudged).
    latencies: Vec<Option<Duration>>,
    /// How many filmed tables were read as filmed.
    read: usize,
    /// The flags raised, and those the script's own replay raises.
    flags: (usize, usize),
}

fn measure(
    script: &Script,
    dir: &Path,
    frames: &[(Table, SceneParams)],
    o: &Options,
    via: &str,
) -> Result<Measured, String> {
    // The first frame of each still spell: the move's last card lies still.
    let spells: Vec<(usize, &Table)> = frames
        .iter()
        .enumerate()
        .filter(|(i, (_, p))| p.hand.is_none() && (*i == 0 || frames[i - 1].1.hand.is_some()))
        .map(|(i, (t, _))| (i, t))
        .collect();
    // A learned deck is learned from its faces, as `arbiter deck learn`
    // does, into a file beside the frames.
    let deck = match o.deck.faces_dir() {
        Some(faces) => {
            let model = DeckModel::learn_dir(Path::new(&faces)).map_err(|e| e.to_string())?;
            let file = dir.join("deck.toml");
            model
                .save(&file)
                .map_err(|e| format!("{}: {e}", file.display()))?;
            Some(file)
        }
        None => None,
    };
    let cfg = VisionConfig {
        deck,
        settle: o.settle,
        fps: o.fps,
        realtime: true,
        whole_frames: o.whole,
        ..VisionConfig::default()
    };
    let (live, started) = match via {
        "frames" => {
            let started = Instant::now();
            let input = CameraInput::Frames(dir.to_path_buf());
            (open(&input, &cfg).map_err(|e| e.to_string())?, started)
        }
        "http" => {
            let (url, first_sent) = serve_mjpeg(dir, o.fps)?;
            let input = CameraInput::Network(url.parse().map_err(|e| format!("{e}"))?);
            let live = open(&input, &cfg).map_err(|e| e.to_string())?;
            let started = first_sent
                .recv_timeout(Duration::from_secs(10))
                .map_err(|_| "the loopback camera sent no frame".to_string())?;
            (live, started)
        }
        other => return Err(format!("--via {other}: frames or http")),
    };
    // Each observation as it reaches the referee, in step order.
    let observed: Arc<Mutex<Vec<Observation>>> = Arc::default();
    let (tx, rx) = mpsc::channel();
    let seen = observed.clone();
    let events = live.events;
    std::thread::spawn(move || {
        for ev in events.iter() {
            if let (LiveEvent::Observation(obs), Ok(mut s)) = (&ev, seen.lock()) {
                s.push(obs.clone());
            }
            if tx.send(ev).is_err() {
                return;
            }
        }
    });
    let relay = Live {
        name: live.name,
        events: rx,
    };
    let out = Stamped::default();
    run_live(
        script,
        relay,
        Vec::new(),
        &mut out.clone(),
        &mut io::sink(),
        true,
        None,
    )
    .map_err(|e| e.to_string())?;
    let lines = out.lines.lock().map_err(|e| e.to_string())?.clone();
    let observed = observed.lock().map_err(|e| e.to_string())?.clone();
    // The first event of each step, when written (the game's start is
    // stamped step 0 too, before any observation).
    let first_event = |step: usize| {
        lines.iter().find_map(|(at, l)| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            let judged = v["event"] != "game_started";
            (judged && v["step"].as_u64() == Some(step as u64)).then_some(*at)
        })
    };
    let mut latencies = vec![None; spells.len()];
    let mut read = 0;
    let mut next_spell = 0;
    // A live input's busy frames are no step.
    let judged = observed.iter().filter(|o| !matches!(o, Observation::Busy));
    for (step, obs) in judged.enumerate() {
        let Observation::Table(t) = obs else {
            continue;
        };
        let t = t.at_origin();
        let Some(k) = (next_spell..spells.len()).find(|&k| spells[k].1.at_origin() == t) else {
            if std::env::var_os("SHOW").is_some() {
                eprintln!("step {step}: read as no filmed table:\n{t:?}");
            }
            continue;
        };
        next_spell = k + 1;
        read += 1;
        let still_at = started + Duration::from_secs_f64(spells[k].0 as f64 / f64::from(o.fps));
        latencies[k] = first_event(step).map(|at| at.saturating_duration_since(still_at));
        if std::env::var_os("SHOW").is_some() {
            eprintln!("table {k} (frame {}): {:?}", spells[k].0, latencies[k]);
        }
    }
    let flag = |v: &serde_json::Value| v["event"] == "flag";
    if std::env::var_os("SHOW").is_some() {
        for (_, l) in &lines {
            if serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| flag(&v)) {
                eprintln!("flag: {l}");
            }
        }
    }
    let raised = lines
        .iter()
        .filter_map(|(_, l)| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(flag)
        .count();
    let scripted = arbiter::replay::replay(script)
        .map_err(|e| e.to_string())?
        .iter()
        .map(|e| e.to_json())
        .filter(flag)
        .count();
    Ok(Measured {
        latencies,
        read,
        flags: (raised, scripted),
    })
}

/// Serves the recording in `dir` once, frame by frame at `fps`, as a
/// phone's camera app serves its stream (`multipart/x-mixed-replace`) on
/// a loopback port, then closes the stream; its address, and when the
/// first frame was sent.
fn serve_mjpeg(dir: &Path, fps: f32) -> Result<(String, mpsc::Receiver<Instant>), String> {
    use std::net::TcpListener;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jpg"))
        .collect();
    files.sort();
    let frames: Vec<Vec<u8>> = files
        .iter()
        .map(std::fs::read)
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let url = format!(
        "http://{}/video",
        listener.local_addr().map_err(|e| e.to_string())?
    );
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || -> io::Result<()> {
        let (mut conn, _) = listener.accept()?;
        let mut request = [0u8; 1024];
        let _ = io::Read::read(&mut conn, &mut request)?;
        conn.set_nodelay(true)?;
        write!(
            conn,
            "HTTP/1.1 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary=frame\r\n\r\n"
        )?;
        let first = Instant::now();
        let _ = tx.send(first);
        for (i, jpeg) in frames.iter().enumerate() {
            let due = first + Duration::from_secs_f64(i as f64 / f64::from(fps));
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            write!(
                conn,
                "--frame\r\nContent-Type: image/jpeg\r\nContent-Length: {}\r\n\r\n",
                jpeg.len()
            )?;
            conn.write_all(jpeg)?;
            conn.write_all(b"\r\n")?;
        }
        write!(conn, "--frame--\r\n")
    });
    Ok((url, rx))
}

fn print_row(name: &str, via: &str, m: &Measured) {
    let mut got: Vec<Duration> = m.latencies.iter().flatten().copied().collect();
    got.sort();
    let ms = |d: Option<&Duration>| d.map_or("-".to_string(), |d| format!("{} ms", d.as_millis()));
    let p95 = got.get((got.len() * 95).div_ceil(100).saturating_sub(1));
    println!(
        "{name:<12} {via:<7} {:>6} {:>5} {:>7} {:>7} {:>7} {:>7}  {} ({})",
        m.latencies.len(),
        m.read,
        got.len(),
        ms(got.get(got.len() / 2)),
        ms(p95),
        ms(got.last()),
        m.flags.0,
        m.flags.1
    );
}
