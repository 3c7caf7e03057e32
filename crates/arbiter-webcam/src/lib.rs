//! A webcam (`--input camera:N`): frames through nokhwa (V4L2 on Linux).
//!
//! Every failure is a [`WebcamError`] naming the device, never a panic: the
//! referee keeps its screen and says what to fix (plug it in, join the
//! `video` group, close the other program). The camera's frames become the
//! vision crate's frame source there (`arbiter_vision::camera`); this crate
//! knows nothing of cards, so that its C decoder and bindgen are built only
//! by builds that ask for a webcam.

use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

use image::RgbImage;
use nokhwa::pixel_format::RgbFormat;
use nokhwa::utils::{
    ApiBackend, CameraFormat, CameraIndex, FrameFormat, RequestedFormat, RequestedFormatType,
};
use nokhwa::{Camera, NokhwaError};

/// Why a frame could not be had.
#[derive(Debug, thiserror::Error)]
pub enum WebcamError {
    /// This frame is lost (a torn transfer, a frame that does not decode);
    /// the next may be fine.
    #[error("{0}")]
    Frame(String),
    /// The camera cannot be used (missing, busy, forbidden, unplugged, or
    /// failing every frame).
    #[error("{0}")]
    Gone(String),
}

/// One frame as the camera gave it.
pub struct Capture {
    pub image: RgbImage,
    /// Capture time since the camera started streaming.
    pub at: Duration,
    /// The frame for messages: `camera:0 #1234`.
    pub label: String,
}

/// A driver that fails this many captures in a row without saying the
/// device is gone is as good as gone; without a limit the referee would
/// note a failed frame thirty times a second for ever.
const MAX_FAILED_IN_A_ROW: u32 = 60;

/// A webcam, streaming.
pub struct Webcam {
    index: u32,
    /// Always `Some` until dropped: taken out then so that its drop can be
    /// guarded (see [`release`]).
    camera: Option<Camera>,
    format: CameraFormat,
    started: Instant,
    captured: u64,
    failed_in_a_row: u32,
    /// Once the device has gone, later calls repeat why rather than touch a
    /// dead file descriptor.
    gone: Option<String>,
}

impl Webcam {
    /// Opens camera `index` in the format closest to `want` (width, height)
    /// at `fps` frames a second, and starts it streaming.
    pub fn open(index: u32, want: (u32, u32), fps: u32) -> Result<Webcam, WebcamError> {
        precheck(index)?;
        // Any format will do to open the device: nokhwa's own "closest"
        // request only looks at the requested resolution's frame rates and
        // at one pixel format, so the choice is made in `configure`.
        let any = RequestedFormat::new::<RgbFormat>(RequestedFormatType::None);
        let mut camera = guarded(index, "opening", || {
            Camera::with_backend(CameraIndex::Index(index), any, ApiBackend::Auto)
        })?
        .map_err(|e| open_error(index, &e))?;
        match configure(index, &mut camera, want, fps) {
            Ok(format) => Ok(Webcam {
                index,
                camera: Some(camera),
                format,
                started: Instant::now(),
                captured: 0,
                failed_in_a_row: 0,
                gone: None,
            }),
            Err(e) => {
                release(camera);
                Err(e)
            }
        }
    }

    /// What the camera streams (`1280x720 MJPEG at 30 fps`), as the size
    /// and rate may differ from what was asked.
    pub fn format(&self) -> String {
        let f = self.format;
        format!(
            "{}x{} {} at {} fps",
            f.width(),
            f.height(),
            f.format(),
            f.frame_rate()
        )
    }

    fn failed(&mut self, why: String) -> WebcamError {
        self.failed_in_a_row += 1;
        if self.failed_in_a_row >= MAX_FAILED_IN_A_ROW {
            let why = format!(
                "{}: {} frames in a row failed, giving up (last: {why})",
                source_name(self.index),
                self.failed_in_a_row
            );
            self.gone = Some(why.clone());
            WebcamError::Gone(why)
        } else {
            WebcamError::Frame(why)
        }
    }
}

impl Drop for Webcam {
    fn drop(&mut self) {
        if let Some(camera) = self.camera.take() {
            release(camera);
        }
    }
}

impl Webcam {
    /// Names the camera in messages: `camera:0`.
    pub fn name(&self) -> String {
        source_name(self.index)
    }

    /// The next frame, waiting for the camera to capture it.
    pub fn capture(&mut self) -> Result<Capture, WebcamError> {
        if let Some(why) = &self.gone {
            return Err(WebcamError::Gone(why.clone()));
        }
        let name = source_name(self.index);
        let Some(camera) = self.camera.as_mut() else {
            return Err(WebcamError::Gone(format!("{name}: closed")));
        };
        let buffer = match guarded(self.index, "capturing", || camera.frame()) {
            Err(e) => {
                self.gone = Some(e.to_string());
                return Err(e);
            }
            Ok(Err(e)) => {
                if is_unplugged(self.index, &e) {
                    let why = format!(
                        "{name}: the camera at {} was unplugged",
                        device_path(self.index)
                    );
                    self.gone = Some(why.clone());
                    return Err(WebcamError::Gone(why));
                }
                return Err(self.failed(format!("{name}: capture failed: {e}")));
            }
            Ok(Ok(buffer)) => buffer,
        };
        let at = self.started.elapsed();
        self.captured += 1;
        let label = format!("{name} #{}", self.captured);

        // mozjpeg turns libjpeg's fatal errors into unwinding and catches
        // them itself; should one slip past, a torn USB transfer must still
        // cost one frame, not the referee.
        let decoded = panic::catch_unwind(AssertUnwindSafe(|| buffer.decode_image::<RgbFormat>()));
        let image = match decoded {
            Ok(Ok(img)) => {
                let (w, h) = img.dimensions();
                RgbImage::from_raw(w, h, img.into_raw())
            }
            Ok(Err(e)) => {
                let why = format!(
                    "frame #{}: cannot decode {}: {e}",
                    self.captured,
                    buffer.source_frame_format()
                );
                return Err(self.failed(why));
            }
            Err(_) => None,
        };
        let Some(image) = image else {
            let why = format!(
                "frame #{}: cannot decode {} frame of {} bytes",
                self.captured,
                buffer.source_frame_format(),
                buffer.buffer().len()
            );
            return Err(self.failed(why));
        };
        self.failed_in_a_row = 0;
        Ok(Capture { image, at, label })
    }
}

/// The cameras this machine has, one line each (`camera:0  HD Webcam
/// (Video4Linux Device @ /dev/video0)`), every video node included, as a
/// webcam's metadata node cannot be told apart without opening it; empty
/// when there are none or they cannot be listed.
pub fn list() -> Vec<String> {
    // nokhwa's V4L2 listing unwraps on odd names under /dev.
    let found = panic::catch_unwind(|| nokhwa::query(ApiBackend::Auto));
    let Ok(Ok(mut cameras)) = found else {
        return Vec::new();
    };
    cameras.sort_by(|a, b| a.index().cmp(b.index()));
    cameras
        .iter()
        .map(|c| {
            let id = match c.index() {
                CameraIndex::Index(n) => source_name(*n),
                CameraIndex::String(s) => format!("camera:{s}"),
            };
            format!("{id}  {} ({})", c.human_name(), c.description())
        })
        .collect()
}

fn source_name(index: u32) -> String {
    format!("camera:{index}")
}

fn device_path(index: u32) -> String {
    format!("/dev/video{index}")
}

/// Runs a nokhwa call, turning a panic inside it into an error: a few of
/// its paths `assert!` or `unwrap` on states a driver can still produce.
fn guarded<T>(index: u32, doing: &str, f: impl FnOnce() -> T) -> Result<T, WebcamError> {
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|_| {
        WebcamError::Gone(format!(
            "{}: the capture library failed while {doing} {}",
            source_name(index),
            device_path(index)
        ))
    })
}

/// Sets the format closest to what was asked and starts the stream;
/// returns the format the driver settled on.
fn configure(
    index: u32,
    camera: &mut Camera,
    want: (u32, u32),
    fps: u32,
) -> Result<CameraFormat, WebcamError> {
    let formats = guarded(index, "listing formats", || {
        camera.compatible_camera_formats()
    })?
    .map_err(|e| open_error(index, &e))?;
    let Some(format) = closest_format(&formats, want, fps) else {
        return Err(WebcamError::Gone(no_format(index)));
    };
    if camera.camera_format() != format {
        let fourcc = [format.format()];
        let exact = RequestedFormat::with_formats(RequestedFormatType::Exact(format), &fourcc);
        let set = guarded(index, "setting the format", || {
            camera.set_camera_requset(exact)
        })?;
        // A driver may round the rate or size it was given, which nokhwa
        // calls a rejection; what it settled on is still a working format.
        if let Err(e) = set
            && (os_error(&e).is_some() || camera.refresh_camera_format().is_err())
        {
            return Err(open_error(index, &e));
        }
    }
    guarded(index, "starting the stream", || camera.open_stream())?
        .map_err(|e| open_error(index, &e))?;
    Ok(camera.camera_format())
}

/// Drops a camera without letting its drop panic: nokhwa and v4l unwrap
/// the stopping of the stream and the closing of the device, which a
/// driver in a bad state can fail.
fn release(camera: Camera) {
    let _ = panic::catch_unwind(AssertUnwindSafe(move || drop(camera)));
}

/// Opens the device node first, as nokhwa flattens the operating system's
/// error into text; here its kind still says which advice applies.
#[cfg(target_os = "linux")]
fn precheck(index: u32) -> Result<(), WebcamError> {
    match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(device_path(index))
    {
        Ok(_) => Ok(()),
        Err(e) => Err(WebcamError::Gone(describe_io(index, &e))),
    }
}

#[cfg(not(target_os = "linux"))]
fn precheck(_index: u32) -> Result<(), WebcamError> {
    Ok(())
}

const ENOENT: i32 = 2;
const ENXIO: i32 = 6;
const EACCES: i32 = 13;
const EBUSY: i32 = 16;
const ENODEV: i32 = 19;

fn describe_io(index: u32, e: &io::Error) -> String {
    let name = source_name(index);
    let path = device_path(index);
    match e.raw_os_error() {
        Some(ENOENT | ENXIO | ENODEV) => no_camera(index),
        Some(EACCES) => permission_denied(index),
        Some(EBUSY) => busy(index),
        _ if e.kind() == io::ErrorKind::NotFound => no_camera(index),
        _ if e.kind() == io::ErrorKind::PermissionDenied => permission_denied(index),
        _ => format!("{name}: cannot open {path}: {e}"),
    }
}

fn no_camera(index: u32) -> String {
    format!(
        "{}: no camera at {} (is it plugged in? ls /dev/video*)",
        source_name(index),
        device_path(index)
    )
}

fn permission_denied(index: u32) -> String {
    format!(
        "{}: permission denied opening {} (add yourself to the video group: \
         sudo usermod -aG video $USER, then log in again)",
        source_name(index),
        device_path(index)
    )
}

fn no_format(index: u32) -> String {
    format!(
        "{}: {} offers no colour capture format (it may be a webcam's metadata \
         node; try the next index, see ls /dev/video*)",
        source_name(index),
        device_path(index)
    )
}

fn busy(index: u32) -> String {
    format!(
        "{}: {} is busy: another program is using the camera (close it and try again; \
         fuser {} names it)",
        source_name(index),
        device_path(index),
        device_path(index)
    )
}

/// nokhwa keeps only the text of the operating system's error, ending in
/// `(os error N)`.
fn os_error(e: &NokhwaError) -> Option<i32> {
    let text = e.to_string();
    let start = text.rfind("(os error ")? + "(os error ".len();
    let end = start + text[start..].find(')')?;
    text[start..end].parse().ok()
}

fn open_error(index: u32, e: &NokhwaError) -> WebcamError {
    // What nokhwa says when a node lists no format it knows, as a webcam's
    // metadata node does.
    let no_known_format =
        matches!(e, NokhwaError::GetPropertyError { property, .. } if property == "CameraFormat");
    let why = match os_error(e) {
        Some(n @ (ENOENT | ENXIO | ENODEV | EACCES | EBUSY)) => {
            describe_io(index, &io::Error::from_raw_os_error(n))
        }
        None if no_known_format => no_format(index),
        _ => format!(
            "{}: cannot open the camera at {}: {e}",
            source_name(index),
            device_path(index)
        ),
    };
    WebcamError::Gone(why)
}

/// A device that vanished answers ENODEV; the node disappearing from /dev
/// says the same when a driver answers something vaguer.
fn is_unplugged(index: u32, e: &NokhwaError) -> bool {
    matches!(os_error(e), Some(ENODEV | ENXIO))
        || (cfg!(target_os = "linux") && !Path::new(&device_path(index)).exists())
}

/// The format nearest `want` in size, then nearest `fps`, then cheapest to
/// turn into RGB: YUYV is copied out as it is, MJPEG goes through a JPEG
/// decoder (time, and a frame lost to a torn transfer), the rest are rare
/// on webcams.
fn closest_format(formats: &[CameraFormat], want: (u32, u32), fps: u32) -> Option<CameraFormat> {
    let rank = |f: FrameFormat| match f {
        FrameFormat::YUYV => 0,
        FrameFormat::MJPEG => 1,
        _ => 2,
    };
    formats
        .iter()
        .filter(|f| f.width() > 0 && f.height() > 0 && f.frame_rate() > 0)
        .min_by_key(|f| {
            let dx = i64::from(f.width()) - i64::from(want.0);
            let dy = i64::from(f.height()) - i64::from(want.1);
            let size = dx * dx + dy * dy;
            let rate = i64::from(f.frame_rate()).abs_diff(i64::from(fps));
            (size, rate, rank(f.format()))
        })
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_missing_index() -> u32 {
        (0..)
            .find(|n| !Path::new(&device_path(*n)).exists())
            .unwrap_or(u32::MAX)
    }

    #[test]
    fn a_missing_camera_is_named_with_advice() {
        let n = first_missing_index();
        match Webcam::open(n, (1280, 720), 30) {
            Ok(_) => panic!("camera:{n} opened though /dev/video{n} does not exist"),
            Err(WebcamError::Frame(why)) => {
                panic!("a missing camera is a source error: {why}")
            }
            Err(WebcamError::Gone(why)) => assert_eq!(
                why,
                format!(
                    "camera:{n}: no camera at /dev/video{n} (is it plugged in? ls /dev/video*)"
                )
            ),
        }
    }

    #[test]
    fn list_does_not_panic_and_names_each_camera() {
        let cameras = list();
        for c in &cameras {
            assert!(c.starts_with("camera:"), "{c}");
        }
        let any_node = std::fs::read_dir("/dev").is_ok_and(|d| {
            d.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("video"))
        });
        if !any_node {
            assert!(cameras.is_empty(), "{cameras:?}");
        }
    }

    #[test]
    fn operating_system_errors_get_their_advice() {
        let said = |n: i32| describe_io(3, &io::Error::from_raw_os_error(n));
        assert_eq!(
            said(EACCES),
            "camera:3: permission denied opening /dev/video3 (add yourself to the video group: \
             sudo usermod -aG video $USER, then log in again)"
        );
        assert!(
            said(EBUSY).starts_with("camera:3: /dev/video3 is busy"),
            "{}",
            said(EBUSY)
        );
        assert!(said(ENODEV).contains("no camera at /dev/video3"));
    }

    #[test]
    fn nokhwa_errors_are_read_by_their_os_error() {
        let busy = NokhwaError::SetPropertyError {
            property: "Resolution, FrameFormat".into(),
            value: "1280x720 MJPG".into(),
            error: "Device or resource busy (os error 16)".into(),
        };
        assert_eq!(os_error(&busy), Some(EBUSY));
        match open_error(2, &busy) {
            WebcamError::Gone(why) => assert!(why.contains("/dev/video2 is busy"), "{why}"),
            WebcamError::Frame(why) => panic!("{why}"),
        }
        let gone = NokhwaError::ReadFrameError("No such device (os error 19)".into());
        assert_eq!(os_error(&gone), Some(ENODEV));
        assert!(is_unplugged(first_missing_index(), &gone));
        let unfit = NokhwaError::GetPropertyError {
            property: "CameraFormat".into(),
            error: "Failed to Fufill".into(),
        };
        match open_error(1, &unfit) {
            WebcamError::Gone(why) => assert!(
                why.starts_with("camera:1: /dev/video1 offers no colour capture format"),
                "{why}"
            ),
            WebcamError::Frame(why) => panic!("{why}"),
        }
        let odd = NokhwaError::ReadFrameError("Stream Not Started".into());
        assert_eq!(os_error(&odd), None);
    }

    #[test]
    fn the_closest_size_wins_then_the_rate_then_yuyv() {
        let f = |w, h, fmt, fps| CameraFormat::new_from(w, h, fmt, fps);
        let offered = [
            f(1920, 1080, FrameFormat::MJPEG, 30),
            f(1280, 720, FrameFormat::MJPEG, 30),
            f(1280, 720, FrameFormat::YUYV, 10),
            f(1280, 720, FrameFormat::NV12, 30),
            f(640, 480, FrameFormat::YUYV, 30),
        ];
        assert_eq!(
            closest_format(&offered, (1280, 720), 30),
            Some(f(1280, 720, FrameFormat::MJPEG, 30))
        );
        assert_eq!(
            closest_format(&offered, (1280, 720), 10),
            Some(f(1280, 720, FrameFormat::YUYV, 10))
        );
        assert_eq!(
            closest_format(&offered[3..], (1280, 720), 30),
            Some(f(1280, 720, FrameFormat::NV12, 30))
        );
        assert_eq!(
            closest_format(&offered, (800, 600), 30),
            Some(f(640, 480, FrameFormat::YUYV, 30))
        );
        assert_eq!(closest_format(&[], (1280, 720), 30), None);
    }
}
