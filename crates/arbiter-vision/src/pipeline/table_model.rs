//! The table model and change: what the table looks like, learned from the
//! frame itself, and which parts of a frame changed since the last still
//! table.
//!
//! Every threshold a later stage needs about "the table" is a number here,
//! measured on the frame: how noisy its lightness is from pixel to pixel
//! (grain, weave, camera noise), and so how large a step in lightness is a
//! card's edge rather than the cloth. A patterned cloth is not a case in
//! the code: it is a table whose measured texture is high.

use super::plane::Plane;

/// What the stages know about the empty table.
#[derive(Clone, Debug, PartialEq)]
pub struct TableModel {
    /// Half-size of the window a pixel is compared with in finding
    /// (decimated pixels).
    pub window_radius: usize,
    /// How much lighter or darker than its window a pixel must be to count
    /// as part of a candidate.
    pub contrast: f32,
    /// The least step in lightness across a card's edge (full resolution,
    /// over two pixels).
    pub step: f32,
    /// The table's texture: the median difference in lightness between
    /// neighbouring decimated pixels.
    pub texture: f32,
}

impl TableModel {
    /// Learns the table from a decimated frame: most of any frame is table,
    /// so the median neighbour difference is the table's texture.
    pub fn learn(dec: &Plane) -> TableModel {
        let mut hist = [0u32; 256];
        let (w, h) = (dec.width, dec.height);
        for y in (0..h.saturating_sub(1)).step_by(2) {
            for x in (0..w.saturating_sub(1)).step_by(2) {
                let v = i16::from(dec.at(x, y));
                let d = (v - i16::from(dec.at(x + 1, y)))
                    .abs()
                    .max((v - i16::from(dec.at(x, y + 1))).abs());
                hist[d as usize] += 1;
            }
        }
        let total: u32 = hist.iter().sum();
        let mut acc = 0;
        let mut median = 0usize;
        for (i, &n) in hist.iter().enumerate() {
            acc += n;
            if acc * 2 >= total {
                median = i;
                break;
            }
        }
        let texture = median as f32;
        TableModel {
            window_radius: 15,
            contrast: (6.0 + 1.5 * texture).min(30.0),
            step: (10.0 + 1.0 * texture).min(40.0),
            texture,
        }
    }
}

/// Which tiles of the frame changed between two decimated frames.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// Tile side, decimated pixels.
    pub tile: usize,
    pub cols: usize,
    pub rows: usize,
    /// Row-major: whether the tile's mean absolute difference exceeded the
    /// threshold.
    pub changed: Vec<bool>,
    /// Decimation of the planes compared.
    pub k: usize,
}

impl Change {
    /// Tiles of `tile` pixels whose mean lightness difference is over
    /// `threshold`.
    pub fn between(before: &Plane, now: &Plane, k: usize, tile: usize, threshold: f32) -> Change {
        let cols = now.width.div_ceil(tile);
        let rows = now.height.div_ceil(tile);
        let mut sums = vec![(0u32, 0u32); cols * rows];
        if before.width == now.width && before.height == now.height {
            for y in 0..now.height {
                let t_row = (y / tile) * cols;
                for x in 0..now.width {
                    let d = (i16::from(before.at(x, y)) - i16::from(now.at(x, y))).unsigned_abs();
                    let s = &mut sums[t_row + x / tile];
                    s.0 += u32::from(d);
                    s.1 += 1;
                }
            }
        }
        let changed = sums
            .iter()
            .map(|&(s, n)| n == 0 || s as f32 / n as f32 > threshold)
            .collect();
        Change {
            tile,
            cols,
            rows,
            changed,
            k,
        }
    }

    /// Whether any tile under the frame-pixel box `(x0, y0, x1, y1)`
    /// changed.
    pub fn any_in(&self, (x0, y0, x1, y1): (f32, f32, f32, f32)) -> bool {
        let s = (self.tile * self.k) as f32;
        let c0 = (x0 / s).floor().max(0.0) as usize;
        let r0 = (y0 / s).floor().max(0.0) as usize;
        let c1 = ((x1 / s).floor().max(0.0) as usize).min(self.cols - 1);
        let r1 = ((y1 / s).floor().max(0.0) as usize).min(self.rows - 1);
        (r0..=r1).any(|r| (c0..=c1).any(|c| self.changed[r * self.cols + c]))
    }

    /// Share of tiles changed.
    pub fn share(&self) -> f32 {
        self.changed.iter().filter(|&&c| c).count() as f32 / self.changed.len().max(1) as f32
    }
}
