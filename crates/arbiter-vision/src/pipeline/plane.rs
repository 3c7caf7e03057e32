//! One-channel images the stages work on: the frame's lightness at full
//! resolution and decimated, with a summed-area table for window means.
//!
//! A leaf: it imports no other stage.

use image::RgbImage;

use super::geometry::Pt;

/// A one-channel 8-bit image, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Plane {
    pub width: usize,
    pub height: usize,
    pub data: Vec<u8>,
}

impl Plane {
    pub fn new(width: usize, height: usize) -> Plane {
        Plane {
            width,
            height,
            data: vec![0; width * height],
        }
    }

    /// The frame's lightness (integer Rec. 601 weights).
    pub fn luma(frame: &RgbImage) -> Plane {
        let (w, h) = (frame.width() as usize, frame.height() as usize);
        let data = frame
            .as_raw()
            .chunks_exact(3)
            .map(|p| luma8(p[0], p[1], p[2]))
            .collect();
        Plane {
            width: w,
            height: h,
            data,
        }
    }

    /// The frame's lightness averaged over `k`×`k` blocks (the last
    /// partial row and column are dropped).
    pub fn luma_decimated(frame: &RgbImage, k: usize) -> Plane {
        let (fw, fh) = (frame.width() as usize, frame.height() as usize);
        let (w, h) = (fw / k, fh / k);
        let raw = frame.as_raw();
        let mut acc = vec![0u32; w];
        let mut out = Plane::new(w, h);
        let n = (k * k) as u32;
        for y in 0..h {
            acc.iter_mut().for_each(|a| *a = 0);
            for dy in 0..k {
                let row = &raw[(y * k + dy) * fw * 3..][..w * k * 3];
                for (x, a) in acc.iter_mut().enumerate() {
                    for p in row[x * k * 3..][..k * 3].chunks_exact(3) {
                        *a += u32::from(luma8(p[0], p[1], p[2]));
                    }
                }
            }
            for (o, a) in out.data[y * w..][..w].iter_mut().zip(&acc) {
                *o = ((a + n / 2) / n) as u8;
            }
        }
        out
    }

    #[inline]
    pub fn at(&self, x: usize, y: usize) -> u8 {
        self.data[y * self.width + x]
    }

    /// Bilinear sample at `p`, clamped to the image.
    #[inline]
    pub fn sample(&self, p: Pt) -> f32 {
        let x = p.0.clamp(0.0, (self.width - 1) as f32);
        let y = p.1.clamp(0.0, (self.height - 1) as f32);
        // Truncation is the floor for these (clamped non-negative), and
        // spares a libm call in the finder's hottest loop.
        let (x0, y0) = (x as usize, y as usize);
        let (x1, y1) = ((x0 + 1).min(self.width - 1), (y0 + 1).min(self.height - 1));
        let (fx, fy) = (x - x0 as f32, y - y0 as f32);
        let a = f32::from(self.at(x0, y0));
        let b = f32::from(self.at(x1, y0));
        let c = f32::from(self.at(x0, y1));
        let d = f32::from(self.at(x1, y1));
        (a * (1.0 - fx) + b * fx) * (1.0 - fy) + (c * (1.0 - fx) + d * fx) * fy
    }
}

#[inline]
pub fn luma8(r: u8, g: u8, b: u8) -> u8 {
    ((77 * u32::from(r) + 150 * u32::from(g) + 29 * u32::from(b) + 128) >> 8) as u8
}

/// Summed-area table of a plane and of its squares: any window's mean and
/// spread in four lookups.
pub struct Integral {
    width: usize,
    height: usize,
    /// `(width + 1) × (height + 1)`, a zero row and column first.
    sum: Vec<u32>,
    sq: Vec<u64>,
}

impl Integral {
    pub fn of(p: &Plane) -> Integral {
        let (w, h) = (p.width, p.height);
        let stride = w + 1;
        let mut sum = vec![0u32; stride * (h + 1)];
        let mut sq = vec![0u64; stride * (h + 1)];
        for y in 0..h {
            let (mut row, mut row_sq) = (0u32, 0u64);
            for x in 0..w {
                let v = u32::from(p.data[y * w + x]);
                row += v;
                row_sq += u64::from(v * v);
                sum[(y + 1) * stride + x + 1] = sum[y * stride + x + 1] + row;
                sq[(y + 1) * stride + x + 1] = sq[y * stride + x + 1] + row_sq;
            }
        }
        Integral {
            width: w,
            height: h,
            sum,
            sq,
        }
    }

    /// Clamped window `[x0, x1) × [y0, y1)`: its pixel count, sum and sum
    /// of squares.
    pub fn window(&self, x0: isize, y0: isize, x1: isize, y1: isize) -> (u32, u32, u64) {
        let cx = |v: isize| v.clamp(0, self.width as isize) as usize;
        let cy = |v: isize| v.clamp(0, self.height as isize) as usize;
        let (x0, x1, y0, y1) = (cx(x0), cx(x1), cy(y0), cy(y1));
        if x1 <= x0 || y1 <= y0 {
            return (0, 0, 0);
        }
        let s = self.width + 1;
        let n = ((x1 - x0) * (y1 - y0)) as u32;
        let sum = self.sum[y1 * s + x1] + self.sum[y0 * s + x0]
            - self.sum[y0 * s + x1]
            - self.sum[y1 * s + x0];
        let sq = self.sq[y1 * s + x1] + self.sq[y0 * s + x0]
            - self.sq[y0 * s + x1]
            - self.sq[y1 * s + x0];
        (n, sum, sq)
    }

    /// Mean of the window of half-size `r` about `(x, y)`.
    #[inline]
    pub fn mean_about(&self, x: usize, y: usize, r: usize) -> f32 {
        let (x, y, r) = (x as isize, y as isize, r as isize);
        let (n, s, _) = self.window(x - r, y - r, x + r + 1, y + r + 1);
        s as f32 / n.max(1) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimation_averages_blocks() {
        let mut img = RgbImage::new(4, 2);
        img.put_pixel(0, 0, image::Rgb([255, 255, 255]));
        let d = Plane::luma_decimated(&img, 2);
        assert_eq!((d.width, d.height), (2, 1));
        assert_eq!(d.data, vec![64, 0]);
    }

    #[test]
    fn window_sums_match_a_direct_sum() {
        let p = Plane {
            width: 5,
            height: 4,
            data: (0..20).map(|v| v as u8 * 7).collect(),
        };
        let ii = Integral::of(&p);
        let (n, s, q) = ii.window(1, 1, 4, 3);
        let direct: Vec<u32> = (1..3)
            .flat_map(|y| (1..4).map(move |x| (x, y)))
            .map(|(x, y)| u32::from(p.at(x, y)))
            .collect();
        assert_eq!(n, 6);
        assert_eq!(s, direct.iter().sum::<u32>());
        assert_eq!(q, direct.iter().map(|v| u64::from(v * v)).sum::<u64>());
        assert_eq!(ii.window(-5, -5, 0, 10), (0, 0, 0));
    }
}
