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
const KINDS: &str =
    "mock, script:FILE, serial:PORT, frames:DIR, camera:N or camera:http://HOST:PORT/PATH";

/// An `--input` that names no input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadInput {
    #[error("write the input as KIND:WHERE, such as script:game.toml ({KINDS})")]
    NoKind,
    #[error("{0}: name where, such as {0}:…")]
    NoPlace(String),
    #[error(
        "name the camera by number, such as camera:0, or by its stream's address, such as \
         camera:http://192.168.1.20:8080/video, not {0:?}"
    )]
    CameraNumber(String),
    #[error(transparent)]
    CameraUrl(#[from] arbiter::input::vision::BadUrl),
    #[error("unknown input kind {0:?} (this build reads {KINDS})")]
    UnknownKind(String),
}

impl FromStr for InputSpec {
    type Err = BadInput;

    fn from_str(s: &str) -> Result<InputSpec, BadInput> {
        if s == "mock" {
            return Ok(InputSpec::Mock);
        }
        let Some((kind, place)) = s.split_once(':') else {
            return Err(BadInput::NoKind);
        };
        if place.is_empty() {
            return Err(BadInput::NoPlace(kind.to_string()));
        }
        match kind {
            "script" => Ok(InputSpec::Script(place.into())),
            "serial" => Ok(InputSpec::Serial(place.into())),
            "frames" => Ok(InputSpec::Camera(CameraInput::Frames(place.into()))),
            "camera" if place.contains("://") => Ok(InputSpec::Camera(CameraInput::Network(
                place.parse::<arbiter::input::vision::CameraUrl>()?,
            ))),
            "camera" => place
                .parse()
                .map(|n| InputSpec::Camera(CameraInput::Webcam(n)))
                .map_err(|_| BadInput::CameraNumber(place.to_string())),
            _ => Err(BadInput::UnknownKind(kind.to_string())),
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
        let err = |s: &str| s.parse::<InputSpec>().unwrap_err().to_string();
        assert!(err("game.toml").contains("KIND:WHERE"));
        assert!(err("script:").contains("name where"));
        assert!(err("camera:front").contains("by number"));
        assert!(err("usb:1").contains("unknown input kind \"usb\""));
    }
}
