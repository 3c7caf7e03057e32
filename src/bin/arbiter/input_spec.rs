//! `--input KIND:WHERE`, parsed once by clap into a typed value.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use arbiter::input::vision::CameraInput;

/// Where observations come from.
#[derive(Clone, Debug, PartialEq)]
pub enum InputSpec {
    /// The mock device: the keyboard on the terminal view.
    Mock,
    /// A table script (its game and setup too).
    Script(PathBuf),
    /// A card-reader mat on a serial port.
    Serial(PathBuf),
    /// A camera: a recording of frames, or a webcam.
    Camera(CameraInput),
}

/// What an `--input` says when it names nothing this build reads.
const KINDS: &str = "mock, script:FILE, serial:PORT, frames:DIR or camera:N";

impl FromStr for InputSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<InputSpec, String> {
        if s == "mock" {
            return Ok(InputSpec::Mock);
        }
        let Some((kind, place)) = s.split_once(':') else {
            return Err(format!(
                "write the input as KIND:WHERE, such as script:game.toml ({KINDS})"
            ));
        };
        if place.is_empty() {
            return Err(format!("{kind}: name where, such as {kind}:…"));
        }
        match kind {
            "script" => Ok(InputSpec::Script(place.into())),
            "serial" => Ok(InputSpec::Serial(place.into())),
            "frames" => Ok(InputSpec::Camera(CameraInput::Frames(place.into()))),
            "camera" => place
                .parse()
                .map(|n| InputSpec::Camera(CameraInput::Webcam(n)))
                .map_err(|_| format!("name the camera by number, such as camera:0, not {place:?}")),
            _ => Err(format!(
                "unknown input kind {kind:?} (this build reads {KINDS})"
            )),
        }
    }
}

impl fmt::Display for InputSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputSpec::Mock => write!(f, "mock"),
            InputSpec::Script(p) => write!(f, "script:{}", p.display()),
            InputSpec::Serial(p) => write!(f, "serial:{}", p.display()),
            InputSpec::Camera(c) => write!(f, "{c}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_parses_and_prints_back() {
        for s in [
            "mock",
            "script:game.toml",
            "serial:/dev/ttyACM0",
            "frames:rec",
            "camera:2",
        ] {
            let spec: InputSpec = s.parse().unwrap();
            assert_eq!(spec.to_string(), s);
        }
        assert_eq!(
            "script:a:b.toml".parse::<InputSpec>(),
            Ok(InputSpec::Script("a:b.toml".into()))
        );
    }

    #[test]
    fn a_bad_input_says_what_is_wrong() {
        let err = |s: &str| s.parse::<InputSpec>().unwrap_err();
        assert!(err("game.toml").contains("KIND:WHERE"));
        assert!(err("script:").contains("name where"));
        assert!(err("camera:front").contains("by number"));
        assert!(err("usb:1").contains("unknown input kind \"usb\""));
    }
}
