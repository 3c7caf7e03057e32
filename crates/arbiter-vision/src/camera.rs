//! `--input camera:N`: a webcam (the `arbiter-webcam` crate, behind the
//! `camera` feature) as a source of frames.

pub use arbiter_webcam::{Webcam, WebcamError, list};

use crate::frames::{Frame, FrameError, FrameSource};

impl From<WebcamError> for FrameError {
    fn from(e: WebcamError) -> FrameError {
        match e {
            WebcamError::Frame(why) => FrameError::Frame(why),
            WebcamError::Gone(why) => FrameError::Source(why),
        }
    }
}

impl FrameSource for Webcam {
    fn name(&self) -> String {
        Webcam::name(self)
    }

    fn live(&self) -> bool {
        true
    }

    fn next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
        let c = self.capture()?;
        Ok(Some(Frame {
            image: c.image,
            at: c.at,
            label: c.label,
        }))
    }
}
