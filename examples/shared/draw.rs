//! Drawing outlines over a frame, for the examples that show what a
//! reader saw (`probe_frame`, `coded_probe`).
use image::{Rgb, RgbImage};

pub fn dist(a: (f32, f32), b: (f32, f32)) -> f32 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

/// A quadrilateral's four sides, one pixel wide, clipped to the frame.
pub fn draw(frame: &mut RgbImage, corners: &[(f32, f32); 4], colour: Rgb<u8>) {
    for i in 0..4 {
        let (a, b) = (corners[i], corners[(i + 1) % 4]);
        let n = dist(a, b).ceil() as usize + 1;
        for k in 0..=n {
            let t = k as f32 / n as f32;
            let (x, y) = (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
            if x >= 0.0 && y >= 0.0 && (x as u32) < frame.width() && (y as u32) < frame.height() {
                frame.put_pixel(x as u32, y as u32, colour);
            }
        }
    }
}
