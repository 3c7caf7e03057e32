//! Connected regions of a binary mask, labelled run by run with a
//! union-find (as fiducial detectors label their thresholded frames), and
//! each region's outline points.
//!
//! A leaf: it imports no other stage.

/// One four-connected region of set pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    /// Pixels in the region.
    pub area: usize,
    /// Bounding box, inclusive: `x0, y0, x1, y1`.
    pub bbox: (usize, usize, usize, usize),
    /// Whether it reaches the mask's edge.
    pub touches_edge: bool,
    /// The region's boundary pixels (set pixels with an unset or outside
    /// four-neighbour), filled only for regions asked for.
    pub boundary: Vec<(u16, u16)>,
}

impl Region {
    pub fn bbox_size(&self) -> (usize, usize) {
        (self.bbox.2 - self.bbox.0 + 1, self.bbox.3 - self.bbox.1 + 1)
    }
}

/// A horizontal run of set pixels.
#[derive(Clone, Copy)]
struct Run {
    y: u16,
    x0: u16,
    /// Exclusive.
    x1: u16,
}

fn root(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let p = parent[i as usize];
        parent[i as usize] = parent[p as usize];
        i = p;
    }
    i
}

/// The regions of `mask` (`width`×`height`, nonzero set), and each pixel's
/// region index (`u32::MAX` where unset). `want_boundary` says, from a
/// region's area and bounding box, whether to collect its outline.
pub fn label(
    mask: &[u8],
    width: usize,
    height: usize,
    want_boundary: impl Fn(usize, (usize, usize)) -> bool,
) -> (Vec<Region>, Vec<u32>) {
    // Runs, row by row, each unioned with the runs of the row above that
    // it overlaps.
    let mut runs: Vec<Run> = Vec::new();
    let mut row_start: Vec<usize> = Vec::with_capacity(height + 1);
    let mut parent: Vec<u32> = Vec::new();
    for y in 0..height {
        row_start.push(runs.len());
        let row = &mask[y * width..][..width];
        let mut x = 0;
        while x < width {
            if row[x] == 0 {
                x += 1;
                continue;
            }
            let x0 = x;
            while x < width && row[x] != 0 {
                x += 1;
            }
            let id = runs.len() as u32;
            runs.push(Run {
                y: y as u16,
                x0: x0 as u16,
                x1: x as u16,
            });
            parent.push(id);
        }
        if y > 0 {
            let (above, here) = (row_start[y - 1], row_start[y]);
            let mut a = above;
            for r in here..runs.len() {
                let run = runs[r];
                while a < here && runs[a].x1 <= run.x0 {
                    a += 1;
                }
                let mut b = a;
                while b < here && runs[b].x0 < run.x1 {
                    let (ra, rb) = (root(&mut parent, r as u32), root(&mut parent, b as u32));
                    if ra != rb {
                        let (lo, hi) = (ra.min(rb), ra.max(rb));
                        parent[hi as usize] = lo;
                    }
                    b += 1;
                }
            }
        }
    }
    row_start.push(runs.len());
    // Regions in order of their first run.
    let mut index = vec![u32::MAX; runs.len()];
    let mut regions: Vec<Region> = Vec::new();
    for i in 0..runs.len() {
        let r = root(&mut parent, i as u32) as usize;
        if index[r] == u32::MAX {
            index[r] = regions.len() as u32;
            regions.push(Region {
                area: 0,
                bbox: (usize::MAX, usize::MAX, 0, 0),
                touches_edge: false,
                boundary: Vec::new(),
            });
        }
        let k = index[r];
        index[i] = k;
        let run = runs[i];
        let g = &mut regions[k as usize];
        let (x0, x1, y) = (run.x0 as usize, run.x1 as usize - 1, run.y as usize);
        g.area += x1 + 1 - x0;
        g.bbox = (
            g.bbox.0.min(x0),
            g.bbox.1.min(y),
            g.bbox.2.max(x1),
            g.bbox.3.max(y),
        );
        g.touches_edge |= x0 == 0 || x1 == width - 1 || y == 0 || y == height - 1;
    }
    let mut labels = vec![u32::MAX; width * height];
    for (i, run) in runs.iter().enumerate() {
        let k = index[i];
        let y = run.y as usize;
        labels[y * width + run.x0 as usize..y * width + run.x1 as usize].fill(k);
    }
    let wanted: Vec<bool> = regions
        .iter()
        .map(|g| want_boundary(g.area, g.bbox_size()))
        .collect();
    for (i, run) in runs.iter().enumerate() {
        let k = index[i] as usize;
        if !wanted[k] {
            continue;
        }
        let y = run.y as usize;
        for x in run.x0 as usize..run.x1 as usize {
            let inner = x > 0
                && x + 1 < width
                && y > 0
                && y + 1 < height
                && labels[y * width + x - 1] == k as u32
                && labels[y * width + x + 1] == k as u32
                && labels[(y - 1) * width + x] == k as u32
                && labels[(y + 1) * width + x] == k as u32;
            if !inner {
                regions[k].boundary.push((x as u16, y as u16));
            }
        }
    }
    (regions, labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_u_shape_is_one_region_and_a_dot_another() {
        #[rustfmt::skip]
        let mask = [
            1, 0, 1, 0, 0,
            1, 0, 1, 0, 1,
            1, 1, 1, 0, 0,
        ];
        let (regions, labels) = label(&mask, 5, 3, |_, _| true);
        assert_eq!(regions.len(), 2);
        assert_eq!(regions[0].area, 7);
        assert_eq!(regions[0].bbox, (0, 0, 2, 2));
        assert_eq!(regions[1].area, 1);
        assert_eq!(labels[9], 1);
        assert_eq!(labels[1], u32::MAX);
        // Every pixel of a three-wide U is on its boundary.
        assert_eq!(regions[0].boundary.len(), 7);
    }
}
