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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_tiles_that_changed_are_marked() {
        let before = Plane {
            width: 64,
            height: 32,
            data: vec![100; 64 * 32],
        };
        let mut now = before.clone();
        // A card put down in the tile at column 2, row 1 (tiles of 16).
        for y in 18..30 {
            for x in 34..46 {
                now.data[y * 64 + x] = 230;
            }
        }
        let c = Change::between(&before, &now, 2, 16, 4.0);
        assert_eq!((c.cols, c.rows), (4, 2));
        let marked: Vec<usize> = (0..8).filter(|&i| c.changed[i]).collect();
        assert_eq!(marked, vec![6]);
        // Frame pixels are twice the plane's.
        assert!(c.any_in((70.0, 40.0, 90.0, 60.0)));
        assert!(!c.any_in((0.0, 0.0, 60.0, 30.0)));
        assert!((c.share() - 1.0 / 8.0).abs() < 1e-6);
    }

    #[test]
    fn a_textured_table_asks_for_larger_steps() {
        let smooth = Plane {
            width: 40,
            height: 40,
            data: vec![120; 1600],
        };
        let grain = Plane {
            width: 40,
            height: 40,
            data: (0..1600)
                .map(|i| if (i / 40 + i) % 2 == 0 { 100 } else { 130 })
                .collect(),
        };
        let (a, b) = (TableModel::learn(&smooth), TableModel::learn(&grain));
        assert_eq!(a.texture, 0.0);
        assert!(b.texture >= 20.0);
        assert!(b.step > a.step && b.contrast > a.contrast);
    }
}
