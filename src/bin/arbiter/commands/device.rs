//! Opening a device (a card-reader mat or a camera) from typed settings.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use arbiter::deck::tags::Registry;
use arbiter::input::live::Live;
use arbiter::input::mat::{self, MatConfig};
use arbiter::input::vision::{self, CameraInput, VisionConfig};
use arbiter::session::Output;

use crate::args::MatArgs;
use crate::input_spec::InputSpec;

/// How to read a device, whichever command opens it.
#[derive(Clone, Debug, Default)]
pub struct DeviceSettings {
    /// A mat's tag registry, or a camera's learned deck.
    pub deck: Option<PathBuf>,
    pub calibration: Option<PathBuf>,
    pub settle: Option<Duration>,
    /// Wait for a mat's port to come back when it closes.
    pub reconnect: bool,
    /// Frames per second of a recording (the camera's default if `None`).
    pub fps: Option<f32>,
    /// Replay a recording at its own pace.
    pub realtime: bool,
}

impl From<&MatArgs> for DeviceSettings {
    fn from(a: &MatArgs) -> DeviceSettings {
        DeviceSettings {
            deck: a.files.deck.clone(),
            calibration: a.files.calibration.clone(),
            settle: a.settle_ms.map(Duration::from_millis),
            reconnect: !a.no_reconnect,
            fps: Some(a.fps),
            realtime: a.realtime,
        }
    }
}

/// A file in the user's configuration folder (`~/.config/arbiter/` on
/// Linux), where `arbiter mat register` and `arbiter calibrate` write by
/// default.
pub fn config_file(name: &str) -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("arbiter").join(name))
}

/// The calibration named, else the one `arbiter calibrate` wrote, if any.
fn calibration(named: Option<&Path>) -> Option<PathBuf> {
    named
        .map(Path::to_path_buf)
        .or_else(|| config_file("camera.toml").filter(|p| p.exists()))
}

/// A mat's configuration for `port`.
pub fn mat_config(port: &Path, s: &DeviceSettings) -> Result<MatConfig> {
    let registry = Registry::named_or_default(s.deck.as_deref())?;
    let mut cfg = MatConfig::new(port.to_path_buf(), registry);
    cfg.settle = s.settle.unwrap_or(Duration::from_millis(300));
    cfg.reconnect = s.reconnect;
    Ok(cfg)
}

/// A camera's configuration.
pub fn vision_config(s: &DeviceSettings) -> VisionConfig {
    let default = VisionConfig::default();
    VisionConfig {
        deck: s.deck.clone(),
        calibration: calibration(s.calibration.as_deref()),
        settle: s.settle.unwrap_or(default.settle),
        fps: s.fps.unwrap_or(default.fps),
        realtime: s.realtime,
        ..default
    }
}

/// The file a recording of frames names its game in: `frames:DIR` with
/// `DIR/game.toml` (a table script or a setup file) needs no `--setup`.
pub const RECORDING_GAME: &str = "game.toml";

/// The setup `input` carries itself: a recording's `game.toml`, if it has
/// one.
pub fn recorded_setup(input: &InputSpec) -> Option<PathBuf> {
    match input {
        InputSpec::Camera(CameraInput::Frames(dir)) => {
            Some(dir.join(RECORDING_GAME)).filter(|p| p.is_file())
        }
        _ => None,
    }
}

/// A device opened: what it reports, and what the game sends back to it
/// (a mat's lights), as outputs for the game's session.
pub struct Device {
    pub live: Live,
    pub outputs: Vec<Box<dyn Output>>,
}

impl From<mat::Mat> for Device {
    fn from(m: mat::Mat) -> Device {
        Device {
            live: m.live,
            outputs: vec![Box::new(m.lights)],
        }
    }
}

/// Opens the device `input` names (a mat or a camera).
pub fn open_with(input: &InputSpec, s: &DeviceSettings) -> Result<Device> {
    match input {
        InputSpec::Serial(port) => Ok(mat::spawn(mat_config(port, s)?)?.into()),
        InputSpec::Camera(c) => Ok(Device {
            live: vision::open(c, &vision_config(s))?,
            outputs: Vec::new(),
        }),
        other => anyhow::bail!("--input {other}: not a device"),
    }
}

/// Opens the device `input` names, read as `--setup`, `--deck` and the
/// other device options say.
pub fn open(input: &InputSpec, args: &MatArgs) -> Result<Device> {
    open_with(input, &DeviceSettings::from(args))
}
