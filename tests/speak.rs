//! `--speak` (`arbiter::speak`): a game's flags heard through the system's
//! real voice (espeak-ng, writing WAV files that must hold speech), the
//! rule that nothing stale is said (a flag mended before the voice reached
//! it is never said, nor its "mended"; a game played faster than speech
//! leaves only what is still true), and the command line without a voice.
//!
//! espeak-ng is installed by `.ci/run`, which sets `ARBITER_REQUIRE_VOICE`
//! so that there its absence fails; a `cargo test` without it says the
//! voice test skipped.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbiter::event::{Event, EventBody, Flag, FlagKind, How};
use arbiter::replay::referee_for;
use arbiter::script::Script;
use arbiter::session::{Judged, Output, OutputError, Session};
use arbiter::speak::{Speaker, SystemVoice, Voice, VoiceError};
use arbiter::spoken;
use arbiter::table::{Beneath, Cell};

const DEMO: &str = "fixtures/scenarios/enprise/demo.toml";

fn demo() -> Script {
    Script::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(DEMO)).unwrap()
}

/// A folder of this test's own, empty.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arbiter-speak-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// ---------------------------------------------------------------------------
// A real voice.

/// A voice that writes down each sentence, then has another say it.
struct Noting<V> {
    said: Arc<Mutex<Vec<String>>>,
    voice: V,
}

impl<V: Voice> Voice for Noting<V> {
    fn say(&mut self, text: &str) -> Result<(), VoiceError> {
        self.said.lock().unwrap().push(text.to_string());
        self.voice.say(text)
    }

    fn name(&self) -> String {
        self.voice.name()
    }
}

/// What a WAV file holds, as far as telling speech from silence goes.
#[derive(Debug)]
struct Wav {
    seconds: f64,
    /// Root mean square of the samples, full scale 1.
    rms: f64,
}

/// Reads a PCM WAV file: a RIFF/WAVE header, a `fmt ` chunk of 16-bit PCM
/// and its `data`.
fn read_wav(path: &Path) -> Result<Wav, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return Err("no RIFF/WAVE header".into());
    }
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    let u32_at =
        |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    let (mut format, mut data) = (None, None);
    let mut at = 12;
    while at + 8 <= bytes.len() {
        let id = &bytes[at..at + 4];
        let size = u32_at(at + 4) as usize;
        let body = at + 8;
        // A stream written without seeking back may leave the size open:
        // the data runs to the end of the file.
        let end = body.saturating_add(size).min(bytes.len());
        match id {
            b"fmt " if end - body >= 16 => {
                format = Some((
                    u16_at(body),
                    u16_at(body + 2),
                    u32_at(body + 4),
                    u16_at(body + 14),
                ))
            }
            b"data" => data = Some(&bytes[body..end]),
            _ => {}
        }
        at = end + (size & 1);
    }
    let (pcm, channels, rate, bits) = format.ok_or("no fmt chunk")?;
    let data = data.ok_or("no data chunk")?;
    if pcm != 1 || bits != 16 || channels == 0 || rate == 0 {
        return Err(format!(
            "not 16-bit PCM: format {pcm}, {bits} bits, {channels} channels, {rate} Hz"
        ));
    }
    let samples: Vec<i16> = data
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect();
    let frames = samples.len() / usize::from(channels);
    let rms = if samples.is_empty() {
        0.0
    } else {
        (samples
            .iter()
            .map(|&s| (f64::from(s) / 32768.0).powi(2))
            .sum::<f64>()
            / samples.len() as f64)
            .sqrt()
    };
    Ok(Wav {
        seconds: frames as f64 / f64::from(rate),
        rms,
    })
}

/// espeak-ng writing WAV files into `dir`, or `None` (the test skips)
/// where it is not installed, unless `ARBITER_REQUIRE_VOICE` asks that it
/// be.
fn espeak_ng(dir: &Path) -> Option<SystemVoice> {
    let voice = SystemVoice::espeak_ng_to(dir);
    if voice.is_none() {
        assert!(
            std::env::var_os("ARBITER_REQUIRE_VOICE").is_none_or(|v| v != "1"),
            "ARBITER_REQUIRE_VOICE=1 and espeak-ng is not installed"
        );
        eprintln!("no espeak-ng here (apt install espeak-ng): the real voice test is skipped");
    }
    voice
}

/// The demo game, step by step at a player's pace (the voice done before
/// the next table), spoken by espeak-ng into WAV files: every flag, its
/// mending, the checks and the end are said, and each file holds speech.
#[test]
fn a_games_flags_are_heard_through_the_real_voice() {
    let dir = scratch("wav");
    let Some(voice) = espeak_ng(&dir) else {
        return;
    };
    let said = Arc::new(Mutex::new(Vec::new()));
    let speaker = Speaker::new(Box::new(Noting {
        said: said.clone(),
        voice,
    }));
    assert_eq!(speaker.voice(), "espeak-ng");
    let script = demo();
    let mut referee = referee_for(&script).unwrap();
    referee.start();
    let mut events: Vec<Event> = Vec::new();
    for (i, obs) in script.observations().enumerate() {
        let step = referee.observe(i, obs);
        speaker.take(&step, &referee.open_flags());
        assert!(
            speaker.wait_idle(Duration::from_secs(60)),
            "espeak-ng took over a minute for step {i}"
        );
        events.extend(step);
    }
    let said = said.lock().unwrap().clone();
    // At a player's pace nothing goes stale: every flag and its mend is
    // said, each check, the mate and the end (a check that becomes a mate
    // in the same step is said as the mate).
    let flags: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Flag(f) => Some(spoken::flag(f)),
            _ => None,
        })
        .collect();
    assert_eq!(flags.len(), 3, "the demo's three slips");
    for f in &flags {
        assert!(said.contains(f), "{f:?} was not said: {said:?}");
    }
    assert_eq!(
        said.iter().filter(|s| *s == "Mended.").count(),
        3,
        "{said:?}"
    );
    assert_eq!(
        said.iter().filter(|s| *s == "Check to Black.").count(),
        2,
        "{said:?}"
    );
    assert_eq!(
        said[said.len() - 2..],
        ["Checkmate to Black.", "Game over: White wins."]
    );
    let mut wavs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wav"))
        .collect();
    wavs.sort();
    assert_eq!(wavs.len(), said.len(), "one file per sentence said");
    for (wav, text) in wavs.iter().zip(&said) {
        let got = read_wav(wav).unwrap_or_else(|e| panic!("{}: {e}", wav.display()));
        println!(
            "{}: {:.2} s, rms {:.3}: {text}",
            wav.display(),
            got.seconds,
            got.rms
        );
        // "Mended." is short; every sentence is still well above a click.
        assert!(got.seconds > 0.3, "{text:?} lasts {:.2} s", got.seconds);
        assert!(got.rms > 0.01, "{text:?} is silence: rms {:.4}", got.rms);
    }
    // A longer sentence is longer speech: the files are what was said.
    let longest = said
        .iter()
        .enumerate()
        .max_by_key(|(_, s)| s.len())
        .unwrap()
        .0;
    let mended = said.iter().position(|s| s == "Mended.").unwrap();
    assert!(
        read_wav(&wavs[longest]).unwrap().seconds > 2.0 * read_wav(&wavs[mended]).unwrap().seconds
    );
    drop(speaker);
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------
// A slow voice: nothing stale is said.

/// A voice that tells when it starts a sentence and holds it until
/// released: a voice as slow as the test wants.
struct Held {
    started: Sender<String>,
    release: Receiver<()>,
    said: Arc<Mutex<Vec<String>>>,
}

/// The test's end of a [`Held`] voice.
struct Hold {
    started: Receiver<String>,
    release: Sender<()>,
    said: Arc<Mutex<Vec<String>>>,
}

fn held() -> (Held, Hold) {
    let (started_tx, started_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel();
    let said = Arc::new(Mutex::new(Vec::new()));
    (
        Held {
            started: started_tx,
            release: release_rx,
            said: said.clone(),
        },
        Hold {
            started: started_rx,
            release: release_tx,
            said,
        },
    )
}

impl Voice for Held {
    fn say(&mut self, text: &str) -> Result<(), VoiceError> {
        let _ = self.started.send(text.to_string());
        // Released by the test, or let go if the test has gone.
        let _ = self.release.recv_timeout(Duration::from_secs(30));
        self.said.lock().unwrap().push(text.to_string());
        Ok(())
    }

    fn name(&self) -> String {
        "held".into()
    }
}

impl Hold {
    /// The sentence the voice starts next, within a few seconds.
    fn starts(&self) -> Option<String> {
        self.started.recv_timeout(Duration::from_secs(3)).ok()
    }

    /// Lets the sentence being said end.
    fn release(&self) {
        self.release.send(()).unwrap();
    }

    fn said(&self) -> Vec<String> {
        self.said.lock().unwrap().clone()
    }
}

fn at(step: usize, body: EventBody) -> Event {
    Event { step, body }
}

fn flag(kind: FlagKind, cell: Cell, rule: &str, message: &str, player: Option<&str>) -> Flag {
    Flag {
        kind,
        cells: vec![cell],
        rule: rule.into(),
        message: message.into(),
        player: player.map(Into::into),
        squares: vec![],
    }
}

fn mended(kind: FlagKind) -> EventBody {
    EventBody::Cleared {
        kind,
        how: How::Mended,
    }
}

/// Flag A is being said; flag B is raised, and mended before the voice
/// reached it: B is never said, nor its "mended". A, said, is mended:
/// "Mended." once.
#[test]
fn a_flag_mended_before_it_was_spoken_is_never_spoken() {
    let (voice, hold) = held();
    let speaker = Speaker::new(Box::new(voice));
    // A: a card the camera cannot read (the referee holds it open beside a
    // table flag).
    let a = flag(
        FlagKind::Unreadable,
        Cell::new(1, 1),
        "INPUT",
        "Cannot read the card at (1,1): straighten it or clear the view",
        None,
    );
    let b = flag(
        FlagKind::IllegalPlacement,
        Cell::new(3, 0),
        "EP-PLACE-ADJ",
        "The card at (3,0) touches no other card: a new card must touch the board, side or corner",
        Some("white"),
    );
    let (a_words, b_words) = (spoken::flag(&a), spoken::flag(&b));
    speaker.take(&[at(1, EventBody::Flag(a.clone()))], &[&a]);
    assert_eq!(
        hold.starts().as_deref(),
        Some(a_words.as_str()),
        "A is said at once"
    );
    speaker.take(&[at(2, EventBody::Flag(b.clone()))], &[&a, &b]);
    speaker.take(&[at(3, mended(FlagKind::IllegalPlacement))], &[&a]);
    // A ends; nothing else is started: B is no longer true.
    hold.release();
    assert!(speaker.wait_idle(Duration::from_secs(5)));
    assert_eq!(hold.said(), std::slice::from_ref(&a_words));
    // A is mended after it was said: "Mended.", once.
    speaker.take(&[at(4, mended(FlagKind::Unreadable))], &[]);
    assert_eq!(hold.starts().as_deref(), Some("Mended."));
    hold.release();
    assert!(speaker.wait_idle(Duration::from_secs(5)));
    assert_eq!(hold.said(), [a_words, "Mended.".to_string()]);
    assert!(!hold.said().contains(&b_words));
}

/// An output that hears nothing: the session's caller, here.
struct Nobody;

impl Output for Nobody {
    fn judged(&mut self, _: &Judged<'_>) -> Result<(), OutputError> {
        Ok(())
    }
}

/// The whole demo game played while the voice is still on its first
/// sentence (a game far faster than speech), through the game's session:
/// what waits is only what is still true. The first slip, being said, is
/// "Mended." once; the two later slips, raised and mended meanwhile, are
/// never said; the checks were overtaken by moves and the mate; the mate
/// and the end stand.
#[test]
fn a_game_faster_than_speech_leaves_only_what_is_still_true() {
    let (voice, hold) = held();
    let script = demo();
    let mut session = Session::new(referee_for(&script).unwrap())
        .with_output(Box::new(Speaker::new(Box::new(voice))));
    let mut nobody = Nobody;
    session.start(&mut nobody).unwrap();
    let mut first: Option<String> = None;
    for obs in script.observations() {
        let events = session.observe(obs, &Beneath::new(), &mut nobody).unwrap();
        // The first flag: wait until the voice has started it (a voice
        // takes what comes at once; the test only makes sure of it).
        if first.is_none() && events.iter().any(|e| matches!(e.body, EventBody::Flag(_))) {
            first = Some(hold.starts().expect("the first flag is said"));
        }
    }
    session.finish(&mut nobody).unwrap();
    let first = first.unwrap();
    assert_eq!(
        first,
        "Black's next Battleplan card is the pawn, not the knight. Swap the card."
    );
    // Let every sentence go, as it comes, until the voice has no more.
    hold.release();
    while hold.starts().is_some() {
        hold.release();
    }
    assert_eq!(
        hold.said(),
        [
            first.as_str(),
            "Mended.",
            "Checkmate to Black.",
            "Game over: White wins."
        ]
    );
    drop(session);
}

// ---------------------------------------------------------------------------
// The command line.

/// `watch --speak` on a machine with no voice says so once, on stderr, and
/// referees the game as without it.
#[test]
fn speak_without_a_voice_says_so_once_and_the_game_goes_on() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join(DEMO);
    let run = |speak: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_arbiter"));
        c.args(["watch", "--json", "--input"])
            .arg(format!("script:{}", demo.display()))
            // No voice program can be found on an empty PATH.
            .env("PATH", "");
        if speak {
            c.arg("--speak");
        }
        c.output().unwrap()
    };
    let (with, without) = (run(true), run(false));
    assert!(with.status.success(), "{with:?}");
    let stderr = String::from_utf8_lossy(&with.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines,
        ["arbiter: --speak: no voice found (install espeak-ng); the game goes on without speech"],
        "one line, nothing more"
    );
    assert_eq!(with.stdout, without.stdout, "the same game");
    assert!(String::from_utf8_lossy(&with.stdout).contains("\"event\":\"game_over\""));
}
