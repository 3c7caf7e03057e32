//! Plane geometry and pixel regions that every card-finding stage uses,
//! from the edge map ([`crate::outline`]) up: lines and their meeting
//! points, a quadrilateral's bilinear patch, and runs of pixels joined
//! into regions, and a small linear system solved. Nothing here knows
//! what a card is.

/// The point at `(u, v)` (each 0–1) of a quadrilateral's bilinear patch,
/// corners in order: `(0, 0)` is the first corner, `(1, 0)` the second.
pub(super) fn bilinear(q: &[(f32, f32); 4], u: f32, v: f32) -> (f32, f32) {
    let a = (
        q[0].0 + (q[1].0 - q[0].0) * u,
        q[0].1 + (q[1].1 - q[0].1) * u,
    );
    let b = (
        q[3].0 + (q[2].0 - q[3].0) * u,
        q[3].1 + (q[2].1 - q[3].1) * u,
    );
    (a.0 + (b.0 - a.0) * v, a.1 + (b.1 - a.1) * v)
}

/// A horizontal run of pixels `x0..x1` in row `y`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Run {
    pub y: u32,
    pub x0: u32,
    pub x1: u32,
}

/// Four-connected components of the pixels of a `w`×`h` grid for which
/// `on(index)` holds, each as its runs in row-major order. Labelling runs
/// rather than pixels: a card row is one or two runs, not a hundred pixels.
pub(super) fn components(w: usize, h: usize, on: impl Fn(usize) -> bool) -> Vec<Vec<Run>> {
    let mut runs: Vec<Run> = Vec::new();
    let mut row_start = Vec::with_capacity(h + 1);
    for y in 0..h {
        row_start.push(runs.len());
        let base = y * w;
        let mut x = 0;
        while x < w {
            if on(base + x) {
                let x0 = x;
                while x < w && on(base + x) {
                    x += 1;
                }
                runs.push(Run {
                    y: y as u32,
                    x0: x0 as u32,
                    x1: x as u32,
                });
            }
            x += 1;
        }
    }
    row_start.push(runs.len());
    let mut parent: Vec<u32> = (0..runs.len() as u32).collect();
    fn root(parent: &mut [u32], mut i: u32) -> u32 {
        while parent[i as usize] != i {
            let p = parent[parent[i as usize] as usize];
            parent[i as usize] = p;
            i = p;
        }
        i
    }
    for y in 1..h {
        let (mut i, mut j) = (row_start[y - 1], row_start[y]);
        let (i_end, j_end) = (row_start[y], row_start[y + 1]);
        while i < i_end && j < j_end {
            let (a, b) = (runs[i], runs[j]);
            if a.x0 < b.x1 && b.x0 < a.x1 {
                let (ra, rb) = (root(&mut parent, i as u32), root(&mut parent, j as u32));
                if ra != rb {
                    parent[ra.max(rb) as usize] = ra.min(rb);
                }
            }
            if a.x1 < b.x1 {
                i += 1;
            } else {
                j += 1;
            }
        }
    }
    let mut index = vec![u32::MAX; runs.len()];
    let mut out: Vec<Vec<Run>> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let r = root(&mut parent, i as u32) as usize;
        if index[r] == u32::MAX {
            index[r] = out.len() as u32;
            out.push(Vec::new());
        }
        out[index[r] as usize].push(*run);
    }
    out
}

/// Intersection of the lines through `a` and `b`.
pub(super) fn intersect(
    a: ((f32, f32), (f32, f32)),
    b: ((f32, f32), (f32, f32)),
) -> Option<(f32, f32)> {
    let (p, r) = (a.0, (a.1.0 - a.0.0, a.1.1 - a.0.1));
    let (q, s) = (b.0, (b.1.0 - b.0.0, b.1.1 - b.0.1));
    let den = r.0 * s.1 - r.1 * s.0;
    if den.abs() < 1e-6 {
        return None;
    }
    let t = ((q.0 - p.0) * s.1 - (q.1 - p.1) * s.0) / den;
    Some((p.0 + t * r.0, p.1 + t * r.1))
}

/// A line as a point and a unit direction.
pub(super) type Line = ((f32, f32), (f32, f32));

/// Total least squares line through points.
pub(super) fn fit_line(pts: &[(f32, f32)]) -> Option<Line> {
    if pts.len() < 3 {
        return None;
    }
    let n = pts.len() as f32;
    let (mx, my) = pts
        .iter()
        .fold((0.0, 0.0), |a, p| (a.0 + p.0 / n, a.1 + p.1 / n));
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for p in pts {
        let (dx, dy) = (p.0 - mx, p.1 - my);
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    let angle = 0.5 * (2.0 * sxy).atan2(sxx - syy);
    Some(((mx, my), (angle.cos(), angle.sin())))
}

/// `x` with `a·x = b` (`a` square), by Gaussian elimination with partial
/// pivoting; `None` when `a` is singular.
pub(crate) fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let piv = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[piv][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, piv);
        b.swap(col, piv);
        let (top, rest) = a.split_at_mut(col + 1);
        let pivot = &top[col];
        for (k, row) in rest.iter_mut().enumerate() {
            let f = row[col] / pivot[col];
            if f != 0.0 {
                for (x, p) in row.iter_mut().zip(pivot).skip(col) {
                    *x -= f * p;
                }
                b[col + 1 + k] -= f * b[col];
            }
        }
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| a[i][k] * x[k]).sum();
        x[i] = (b[i] - s) / a[i][i];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}
