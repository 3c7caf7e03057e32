//! Sparse-board geometry shared by the games: a dense grid that grows in any
//! direction, the eight directions, and the knight's leaps with their L
//! routes.

use crate::table::Cell;

/// Orthogonal steps first, then diagonals.
pub const DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

pub const KNIGHT_LEAPS: [(i32, i32); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

/// On an 8x8 board, square `s` being `file + 8 * rank`: for each square,
/// the bitboard of the squares one leap of `d` away (the knight's or the
/// king's moves, Enochian's queen leap). Both chess games build their
/// attack tables with it at compile time.
pub const fn leaps(d: &[(i32, i32)]) -> [u64; 64] {
    let mut out = [0u64; 64];
    let mut s = 0;
    while s < 64 {
        let f = (s % 8) as i32;
        let r = (s / 8) as i32;
        let mut m = 0u64;
        let mut i = 0;
        while i < d.len() {
            let nf = f + d[i].0;
            let nr = r + d[i].1;
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                m |= 1u64 << (nr * 8 + nf);
            }
            i += 1;
        }
        out[s] = m;
        s += 1;
    }
    out
}

pub fn is_orthogonal((dc, dr): (i32, i32)) -> bool {
    dc == 0 || dr == 0
}

/// The two L routes of a knight's leap by `(dc, dr)`, as the two intermediate
/// cells of each, relative to the origin: two steps along the long axis then
/// one across, or one across then two along.
pub fn knight_routes((dc, dr): (i32, i32)) -> [[(i32, i32); 2]; 2] {
    let (sc, sr) = (dc.signum(), dr.signum());
    if dc.abs() == 2 {
        [[(sc, 0), (2 * sc, 0)], [(0, sr), (sc, sr)]]
    } else {
        [[(0, sr), (0, 2 * sr)], [(sc, 0), (sc, sr)]]
    }
}

/// If `to` lies on a straight line (orthogonal or diagonal) from `from`, the
/// unit step and the distance.
pub fn line_between(from: Cell, to: Cell) -> Option<((i32, i32), i32)> {
    let (dc, dr) = (to.col - from.col, to.row - from.row);
    if (dc, dr) == (0, 0) {
        return None;
    }
    if dc == 0 || dr == 0 || dc.abs() == dr.abs() {
        Some(((dc.signum(), dr.signum()), dc.abs().max(dr.abs())))
    } else {
        None
    }
}

/// A dense grid over the bounding box of everything set so far, growing (with
/// some slack) when a cell outside is set. Reads outside give `T::default()`.
/// Games on a growing board read cells far more often than they add them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid<T> {
    origin: Cell,
    width: i32,
    height: i32,
    data: Vec<T>,
}

impl<T: Copy + Default + PartialEq> Default for Grid<T> {
    fn default() -> Self {
        Grid {
            origin: Cell::default(),
            width: 0,
            height: 0,
            data: Vec::new(),
        }
    }
}

impl<T: Copy + Default + PartialEq> Grid<T> {
    #[inline]
    fn index(&self, c: Cell) -> Option<usize> {
        let x = c.col - self.origin.col;
        let y = c.row - self.origin.row;
        if x >= 0 && y >= 0 && x < self.width && y < self.height {
            Some((y * self.width + x) as usize)
        } else {
            None
        }
    }

    #[inline]
    pub fn get(&self, c: Cell) -> T {
        match self.index(c) {
            Some(i) => self.data[i],
            None => T::default(),
        }
    }

    pub fn set(&mut self, c: Cell, v: T) {
        if self.index(c).is_none() {
            if v == T::default() {
                return;
            }
            self.grow_to(c);
        }
        let i = self.index(c).expect("grown to cover the cell");
        self.data[i] = v;
    }

    fn grow_to(&mut self, c: Cell) {
        const SLACK: i32 = 4;
        let (lo, hi) = if self.width == 0 {
            (c.offset(-SLACK, -SLACK), c.offset(SLACK, SLACK))
        } else {
            let hi = self.origin.offset(self.width - 1, self.height - 1);
            (
                Cell::new(
                    self.origin
                        .col
                        .min(c.col - if c.col < self.origin.col { SLACK } else { 0 }),
                    self.origin
                        .row
                        .min(c.row - if c.row < self.origin.row { SLACK } else { 0 }),
                ),
                Cell::new(
                    hi.col.max(c.col + if c.col > hi.col { SLACK } else { 0 }),
                    hi.row.max(c.row + if c.row > hi.row { SLACK } else { 0 }),
                ),
            )
        };
        let width = hi.col - lo.col + 1;
        let height = hi.row - lo.row + 1;
        let mut data = vec![T::default(); (width * height) as usize];
        for y in 0..self.height {
            for x in 0..self.width {
                let v = self.data[(y * self.width + x) as usize];
                let nx = x + self.origin.col - lo.col;
                let ny = y + self.origin.row - lo.row;
                data[(ny * width + nx) as usize] = v;
            }
        }
        *self = Grid {
            origin: lo,
            width,
            height,
            data,
        };
    }

    /// Every cell holding something other than the default, row-major.
    pub fn iter(&self) -> impl Iterator<Item = (Cell, T)> + '_ {
        self.data
            .iter()
            .enumerate()
            .filter(|(_, v)| **v != T::default())
            .map(|(i, v)| {
                let i = i as i32;
                (self.origin.offset(i % self.width, i / self.width), *v)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_grows_in_every_direction_and_keeps_contents() {
        let mut g: Grid<u8> = Grid::default();
        g.set(Cell::new(0, 0), 1);
        g.set(Cell::new(-9, 3), 2);
        g.set(Cell::new(7, -12), 3);
        g.set(Cell::new(100, 100), 0);
        assert_eq!(g.get(Cell::new(0, 0)), 1);
        assert_eq!(g.get(Cell::new(-9, 3)), 2);
        assert_eq!(g.get(Cell::new(7, -12)), 3);
        assert_eq!(g.get(Cell::new(1, 1)), 0);
        let all: Vec<_> = g.iter().collect();
        assert_eq!(
            all,
            vec![
                (Cell::new(7, -12), 3),
                (Cell::new(0, 0), 1),
                (Cell::new(-9, 3), 2)
            ]
        );
    }

    #[test]
    fn knight_routes_match_the_spec_example() {
        // (0,0) -> (2,1): along x then across, or across then along.
        let r = knight_routes((2, 1));
        assert_eq!(r[0], [(1, 0), (2, 0)]);
        assert_eq!(r[1], [(0, 1), (1, 1)]);
        let r = knight_routes((-1, -2));
        assert_eq!(r[0], [(0, -1), (0, -2)]);
        assert_eq!(r[1], [(-1, 0), (-1, -1)]);
    }
}
