//! Frames from a camera or a directory of images, settled into
//! observations.

use std::time::Duration;

use image::RgbImage;

/// One captured frame.
pub struct Frame {
    pub image: RgbImage,
    /// Capture time since the source started.
    pub at: Duration,
    /// Where it came from, for messages (a file name, `camera 0 #1234`).
    pub label: String,
}

/// Why a frame could not be had.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// This frame is lost (unreadable file, a bad capture); the next may be
    /// fine.
    #[error("{0}")]
    Frame(String),
    /// The source is gone (camera unplugged, directory removed).
    #[error("{0}")]
    Source(String),
}

/// Anything that yields frames in order.
pub trait FrameSource: Send {
    /// Names the source in messages (`frames:DIR`, `camera:0`).
    fn name(&self) -> String;
    /// The next frame; `Ok(None)` when the source has no more.
    fn next_frame(&mut self) -> Result<Option<Frame>, FrameError>;
}
