//! The position and its moves: a mailbox of two layers (a throne may hold
//! a second piece) with bitboard masks built on demand for attacks, so
//! that one army's legal moves take microseconds.
//!
//! Squares are indexed as EN-BRD-1 says: 8·(rank−1) + file, a1 = 0.

use crate::event::ActionKind;
use crate::event::{ActionEvent, EventBody};
use crate::table::{Card, Cell, Colour, Piece, Token};

pub type Sq = u8;

pub const BLUE: u8 = 0;
pub const RED: u8 = 1;
pub const BLACK: u8 = 2;
pub const YELLOW: u8 = 3;

/// The armies' card colours, in turn order (EN-BRD-4).
pub const COLOURS: [Colour; 4] = [Colour::Blue, Colour::Red, Colour::Black, Colour::Yellow];
pub const NAMES: [&str; 4] = ["blue", "red", "black", "yellow"];
pub const TITLES: [&str; 4] = ["Blue", "Red", "Black", "Yellow"];
pub const ELEMENTS: [&str; 4] = ["Air", "Fire", "Water", "Earth"];
pub const TEAM_NAMES: [&str; 2] = ["air", "earth"];
pub const TEAM_TITLES: [&str; 2] = ["Air", "Earth"];

/// Each army's thrones, the king's starting throne first (EN-BRD-2,
/// EN-ARR-1): e1 d1, h5 h4, d8 e8, a4 a5.
pub const THRONES: [[Sq; 2]; 4] = [[4, 3], [39, 31], [59, 60], [24, 32]];

/// EN-NET-1.
pub const ARIES: u64 = 0x55AA_55AA_55AA_55AA;

const THRONE_MASK: u64 =
    (1 << 4) | (1 << 3) | (1 << 39) | (1 << 31) | (1 << 59) | (1 << 60) | (1 << 24) | (1 << 32);

pub fn ally(a: u8) -> u8 {
    a ^ 2
}

pub fn team(a: u8) -> u8 {
    a & 1
}

pub fn enemies(a: u8, b: u8) -> bool {
    team(a) != team(b)
}

pub fn army_of(c: Colour) -> Option<u8> {
    COLOURS.iter().position(|&k| k == c).map(|i| i as u8)
}

pub fn army_named(name: &str) -> Option<u8> {
    NAMES.iter().position(|&n| n == name).map(|i| i as u8)
}

pub fn sq_of(cell: Cell) -> Option<Sq> {
    ((0..8).contains(&cell.col) && (0..8).contains(&cell.row))
        .then(|| (8 * (7 - cell.row) + cell.col) as Sq)
}

pub fn cell_of(sq: Sq) -> Cell {
    Cell::new(i32::from(sq % 8), 7 - i32::from(sq / 8))
}

pub fn square_name(sq: Sq) -> String {
    format!("{}{}", (b'a' + sq % 8) as char, sq / 8 + 1)
}

/// Parses "e1".
pub fn parse_square(s: &str) -> Option<Sq> {
    match s.as_bytes() {
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => Some((r - b'1') * 8 + (f - b'a')),
        _ => None,
    }
}

pub fn is_throne(sq: Sq) -> bool {
    THRONE_MASK >> sq & 1 == 1
}

pub fn throne_owner(sq: Sq) -> Option<u8> {
    (0..4).find(|&a| THRONES[a as usize].contains(&sq))
}

pub fn is_aries(sq: Sq) -> bool {
    ARIES >> sq & 1 == 1
}

pub fn network_name(sq: Sq) -> &'static str {
    if is_aries(sq) { "Aries" } else { "Cancer" }
}

/// The square `(df, dr)` away, if on the board.
pub fn step(sq: Sq, df: i8, dr: i8) -> Option<Sq> {
    let f = (sq % 8) as i8 + df;
    let r = (sq / 8) as i8 + dr;
    ((0..8).contains(&f) && (0..8).contains(&r)).then(|| (r * 8 + f) as Sq)
}

/// A pawn's step, per army (EN-BRD-2): north, west, south, east.
pub const FORWARD: [(i8, i8); 4] = [(0, 1), (-1, 0), (0, -1), (1, 0)];

/// A pawn's two capturing steps: forward and one to either side.
pub fn pawn_captures(a: u8) -> [(i8, i8); 2] {
    let (df, dr) = FORWARD[a as usize];
    if df == 0 {
        [(-1, dr), (1, dr)]
    } else {
        [(df, -1), (df, 1)]
    }
}

/// EN-BRD-2: rank 8, file a, rank 1, file h.
pub fn in_zone(a: u8, sq: Sq) -> bool {
    match a {
        BLUE => sq / 8 == 7,
        RED => sq.is_multiple_of(8),
        BLACK => sq / 8 == 0,
        _ => sq % 8 == 7,
    }
}

/// A pawn's patron by its lane in EN-ARR-1, the Queen off those lanes.
pub fn lane_patron(colour: u8, sq: Sq) -> Piece {
    let (file, rank) = (sq % 8, sq / 8 + 1);
    let order = [Piece::Queen, Piece::Bishop, Piece::Knight, Piece::Rook];
    let i = match colour {
        BLUE => (file as i32) - 2,
        RED => rank as i32 - 3,
        BLACK => 5 - file as i32,
        _ => 6 - rank as i32,
    };
    if (0..4).contains(&i) {
        order[i as usize]
    } else {
        Piece::Queen
    }
}

pub fn piece_title(p: Piece) -> &'static str {
    p.name()
}

use crate::games::board::leaps;

pub static KING_STEPS: [u64; 64] = leaps(&crate::games::board::DIRECTIONS);
pub static KNIGHT_LEAPS: [u64; 64] = leaps(&crate::games::board::KNIGHT_LEAPS);
/// EN-MOV-2: exactly two squares, orthogonally or diagonally.
pub static QUEEN_LEAPS: [u64; 64] = leaps(&[
    (2, 0),
    (-2, 0),
    (0, 2),
    (0, -2),
    (2, 2),
    (2, -2),
    (-2, 2),
    (-2, -2),
]);
pub const ORTHO: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
pub const DIAG: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

pub fn bits(mut m: u64) -> impl Iterator<Item = Sq> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let s = m.trailing_zeros() as Sq;
            m &= m - 1;
            Some(s)
        }
    })
}

fn kind_index(p: Piece) -> usize {
    p as usize
}

/// One piece on the board. `army` is the army it moves for (EN-CON-4 may
/// hand a piece to another army); `colour` the army of its card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    pub army: u8,
    pub colour: u8,
    pub kind: Piece,
    /// A pawn's patron (EN-PRO-1); for other pieces, their own type.
    pub patron: Piece,
    /// A pawn demoted on its promotion zone: it never promotes (EN-PRO-5).
    pub inert: bool,
}

impl Unit {
    pub fn new(army: u8, kind: Piece) -> Unit {
        Unit {
            army,
            colour: army,
            kind,
            patron: kind,
            inert: false,
        }
    }

    pub fn pawn(army: u8, patron: Piece) -> Unit {
        Unit {
            patron,
            ..Unit::new(army, Piece::Pawn)
        }
    }

    pub fn card(self) -> Card {
        Card::new(COLOURS[self.colour as usize], self.kind)
    }

    /// "Blue queen", with the army it moves for when annexed.
    pub fn title(self) -> String {
        if self.army == self.colour {
            format!(
                "{} {}",
                TITLES[self.colour as usize],
                piece_title(self.kind)
            )
        } else {
            format!(
                "{} {} (moving for {})",
                TITLES[self.colour as usize],
                piece_title(self.kind),
                TITLES[self.army as usize]
            )
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KingState {
    OnBoard,
    /// Held by this army (EN-FRZ-1).
    Prisoner(u8),
    /// Removed by its ally (EN-CTL-2).
    AllyCaptured,
    /// Off the board, held by nobody known (a script's `frozen`).
    Off,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Withdrawal {
    /// EN-WDR-1.
    Bare,
    /// EN-WDR-2.
    Voluntary,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArmyState {
    pub king: KingState,
    pub frozen: bool,
    /// The player who moves it: an army index in four-player games, a team
    /// index in two-player games.
    pub controller: u8,
    /// The army whose king took it over (EN-CTL-1/2): EN-CTL-3 reverts it.
    pub taken_over_by: Option<u8>,
    pub withdrawn: Option<Withdrawal>,
}

/// Per-army bitboards: every piece by the army it moves for, and the
/// unfrozen ones by kind (only those attack).
#[derive(Clone, Copy, Debug, Default)]
pub struct Masks {
    pub occ: u64,
    pub frozen: u64,
    pub army: [u64; 4],
    pub kind: [[u64; 6]; 4],
}

/// A move of one piece. `join` tells a throne join (EN-THR-3) from an
/// ally-king capture (EN-CTL-2) onto the same square; `promo` is what a
/// pawn entering its zone becomes (None: it waits, EN-PRO-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: Sq,
    pub to: Sq,
    pub kind: Piece,
    pub join: bool,
    pub promo: Option<Piece>,
}

impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}-{}",
            self.kind.letter(),
            square_name(self.from),
            square_name(self.to)
        )?;
        if self.join {
            f.write_str(" (join)")?;
        }
        if let Some(p) = self.promo {
            write!(f, "={}", p.letter())?;
        }
        Ok(())
    }
}

/// Events gathered only when wanted: the legality tests apply moves too.
pub struct Sink {
    pub on: bool,
    pub events: Vec<EventBody>,
}

impl Sink {
    pub fn on() -> Sink {
        Sink {
            on: true,
            events: Vec::new(),
        }
    }

    pub fn off() -> Sink {
        Sink {
            on: false,
            events: Vec::new(),
        }
    }

    pub fn push(&mut self, f: impl FnOnce() -> EventBody) {
        if self.on {
            self.events.push(f());
        }
    }
}

pub fn action(a: u8, what: ActionKind) -> ActionEvent {
    ActionEvent {
        player: NAMES[a as usize].into(),
        action: what,
        ..Default::default()
    }
}

pub fn notice(kind: &str, message: String) -> EventBody {
    EventBody::Notice {
        kind: kind.into(),
        message,
        cells: vec![],
    }
}

/// The rule position: both layers of the board and the armies' states.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pos {
    pub main: [Option<Unit>; 64],
    /// The second piece of a throne; `main` then holds the king.
    pub extra: [Option<Unit>; 64],
    pub armies: [ArmyState; 4],
    /// [captor, captured king's army], in capture order.
    pub prisoners: [Option<(u8, u8)>; 4],
    pub four: bool,
}

impl std::fmt::Debug for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for r in (0..8).rev() {
            for file in 0..8 {
                let s = r * 8 + file;
                match (self.main[s], self.extra[s]) {
                    (Some(a), Some(b)) => write!(f, "{}+{} ", a.card(), b.card())?,
                    (Some(a), None) => write!(f, "{}    ", a.card())?,
                    _ => write!(f, "..    ")?,
                }
            }
            writeln!(f)?;
        }
        write!(f, "{:?} {:?}", self.armies, self.prisoners)
    }
}

/// What one move leaves: the position, and the physical steps other armies
/// may still owe (EN-PRO-3 swaps, kings re-entering): the square and what
/// the table may show there meanwhile.
pub struct Applied {
    pub pos: Pos,
    pub owed: Vec<(Sq, Option<Token>)>,
}

/// The default controller of an army: itself, or its team (EN-BRD-3).
pub fn own_controller(four: bool, a: u8) -> u8 {
    if four { a } else { team(a) }
}

impl Pos {
    pub fn empty(four: bool) -> Pos {
        let army = |a: u8| ArmyState {
            king: KingState::OnBoard,
            frozen: false,
            controller: own_controller(four, a),
            taken_over_by: None,
            withdrawn: None,
        };
        Pos {
            main: [None; 64],
            extra: [None; 64],
            armies: [army(0), army(1), army(2), army(3)],
            prisoners: [None; 4],
            four,
        }
    }

    /// EN-ARR-1.
    pub fn default_array(four: bool) -> Pos {
        let mut p = Pos::empty(four);
        let rows: [(u8, [&str; 5], [&str; 4]); 4] = [
            (
                BLUE,
                ["e1", "e1", "d1", "c1", "f1"],
                ["c2", "d2", "e2", "f2"],
            ),
            (
                RED,
                ["h5", "h5", "h4", "h3", "h6"],
                ["g3", "g4", "g5", "g6"],
            ),
            (
                BLACK,
                ["d8", "d8", "e8", "f8", "c8"],
                ["f7", "e7", "d7", "c7"],
            ),
            (
                YELLOW,
                ["a4", "a4", "a5", "a6", "a3"],
                ["b6", "b5", "b4", "b3"],
            ),
        ];
        let kinds = [
            Piece::King,
            Piece::Knight,
            Piece::Bishop,
            Piece::Queen,
            Piece::Rook,
        ];
        let patrons = [Piece::Queen, Piece::Bishop, Piece::Knight, Piece::Rook];
        for (a, pieces, pawns) in rows {
            for (k, s) in kinds.iter().zip(pieces) {
                p.put(parse_square(s).expect("a square"), Unit::new(a, *k));
            }
            for (pat, s) in patrons.iter().zip(pawns) {
                p.put(parse_square(s).expect("a square"), Unit::pawn(a, *pat));
            }
        }
        p
    }

    /// Adds a piece: the second one on a square goes beside the king.
    pub fn put(&mut self, sq: Sq, u: Unit) {
        let s = sq as usize;
        match self.main[s] {
            None => self.main[s] = Some(u),
            Some(m) if u.kind == Piece::King && m.kind != Piece::King => {
                self.extra[s] = Some(m);
                self.main[s] = Some(u);
            }
            Some(_) => self.extra[s] = Some(u),
        }
    }

    /// Lifts the piece of `kind` off `sq` (either occupant of a throne).
    pub fn take(&mut self, sq: Sq, kind: Piece) -> Option<Unit> {
        let s = sq as usize;
        if let Some(e) = self.extra[s]
            && e.kind == kind
            && self.main[s].is_none_or(|m| m.kind != kind)
        {
            self.extra[s] = None;
            return Some(e);
        }
        let m = self.main[s].take();
        self.main[s] = self.extra[s].take();
        m
    }

    pub fn units_at(&self, sq: Sq) -> impl Iterator<Item = Unit> + '_ {
        self.main[sq as usize]
            .into_iter()
            .chain(self.extra[sq as usize])
    }

    pub fn unit(&self, sq: Sq, kind: Piece) -> Option<Unit> {
        self.units_at(sq).find(|u| u.kind == kind)
    }

    pub fn all_units(&self) -> impl Iterator<Item = (Sq, Unit)> + '_ {
        (0..64u8).flat_map(move |s| self.units_at(s).map(move |u| (s, u)))
    }

    pub fn token(&self, sq: Sq) -> Option<Token> {
        match (self.main[sq as usize], self.extra[sq as usize]) {
            (Some(a), Some(b)) => Some(Token::pair(a.card(), b.card())),
            (Some(a), None) => Some(Token::Up(a.card())),
            _ => None,
        }
    }

    pub fn frozen(&self, a: u8) -> bool {
        self.armies[a as usize].frozen
    }

    pub fn masks(&self) -> Masks {
        let mut m = Masks::default();
        for s in 0..64u8 {
            for u in self.units_at(s) {
                let b = 1u64 << s;
                m.occ |= b;
                m.army[u.army as usize] |= b;
                if self.frozen(u.army) {
                    m.frozen |= b;
                } else {
                    m.kind[u.army as usize][kind_index(u.kind)] |= b;
                }
            }
        }
        m
    }

    /// The square of an army's king, if it stands on the board unfrozen:
    /// the king that can be attacked.
    pub fn live_king(&self, m: &Masks, a: u8) -> Option<Sq> {
        let k = m.kind[a as usize][kind_index(Piece::King)];
        (k != 0).then(|| k.trailing_zeros() as Sq)
    }

    /// The square of an army's king, frozen or not.
    pub fn king_square(&self, a: u8) -> Option<Sq> {
        (0..64u8).find(|&s| {
            self.main[s as usize].is_some_and(|u| u.kind == Piece::King && u.colour == a)
        })
    }

    /// EN-CHK-1: the unfrozen enemy pieces that could capture a king of
    /// army `victim` standing on `sq`.
    pub fn attackers(&self, m: &Masks, sq: Sq, victim: u8) -> u64 {
        let (e1, e2) = ((victim ^ 1) as usize, (victim ^ 3) as usize);
        let k = |p: Piece| m.kind[e1][kind_index(p)] | m.kind[e2][kind_index(p)];
        let s = sq as usize;
        let mut att = KING_STEPS[s] & k(Piece::King)
            | KNIGHT_LEAPS[s] & k(Piece::Knight)
            | QUEEN_LEAPS[s] & k(Piece::Queen);
        for e in [e1, e2] {
            let pawns = m.kind[e][kind_index(Piece::Pawn)];
            if pawns == 0 {
                continue;
            }
            for (df, dr) in pawn_captures(e as u8) {
                if let Some(p) = step(sq, -df, -dr)
                    && pawns >> p & 1 == 1
                {
                    att |= 1 << p;
                }
            }
        }
        for (dirs, slider) in [(ORTHO, k(Piece::Rook)), (DIAG, k(Piece::Bishop))] {
            if slider == 0 {
                continue;
            }
            for (df, dr) in dirs {
                let mut t = sq;
                while let Some(n) = step(t, df, dr) {
                    t = n;
                    if m.occ >> t & 1 == 1 {
                        if slider >> t & 1 == 1 {
                            att |= 1 << t;
                        }
                        break;
                    }
                }
            }
        }
        att
    }

    pub fn in_check(&self, m: &Masks, a: u8) -> bool {
        self.live_king(m, a)
            .is_some_and(|k| self.attackers(m, k, a) != 0)
    }

    pub fn count(&self, a: u8, kind: Piece) -> usize {
        self.all_units()
            .filter(|(_, u)| u.army == a && u.kind == kind)
            .count()
    }

    pub fn army_size(&self, a: u8) -> usize {
        self.all_units().filter(|(_, u)| u.army == a).count()
    }

    /// EN-PRO-5: the army is exactly K+Q, K+B or K, besides the pawn on
    /// `pawn`.
    pub fn privileged(&self, a: u8, pawn: Sq) -> bool {
        let mut king = false;
        let mut others = 0;
        let mut ok = true;
        let mut seen_pawn = false;
        for (s, u) in self.all_units() {
            if u.army != a {
                continue;
            }
            if s == pawn && u.kind == Piece::Pawn && !seen_pawn {
                seen_pawn = true;
                continue;
            }
            match u.kind {
                Piece::King => king = true,
                Piece::Queen | Piece::Bishop => others += 1,
                _ => ok = false,
            }
        }
        ok && king && others <= 1
    }

    /// What a pawn of army `a` on `from` becomes on `to` in its zone.
    pub fn promotions(&self, a: u8, from: Sq, to: Sq, pawn: Unit) -> Vec<Option<Piece>> {
        if !in_zone(a, to) {
            return vec![None];
        }
        if self.privileged(a, from) {
            return [Piece::Queen, Piece::Rook, Piece::Bishop, Piece::Knight]
                .into_iter()
                .map(Some)
                .collect();
        }
        if self.count(a, Piece::Pawn) < 4 {
            vec![Some(promoted_type(to, pawn))]
        } else {
            vec![None]
        }
    }

    /// Where a move by `u` of army `a` from `from` may end on `to`.
    pub fn land(&self, m: &Masks, a: u8, from: Sq, u: Unit, to: Sq) -> Land {
        let s = to as usize;
        let mut l = Land::default();
        match (self.main[s], self.extra[s]) {
            (None, _) => l.empty = true,
            (Some(k), Some(_)) => {
                // EN-THR-5: whoever may take the king takes both.
                l.capture = enemies(k.army, a) && !self.frozen(k.army);
            }
            (Some(v), None) => {
                if self.frozen(v.army) {
                    return l;
                }
                if enemies(v.army, a) {
                    l.capture = may_capture(u.kind, v.kind, from, to);
                } else if v.kind == Piece::King {
                    l.join = THRONES[v.army as usize].contains(&to)
                        && !matches!(u.kind, Piece::King | Piece::Pawn);
                    l.capture = v.army == ally(a) && self.four && self.in_check(m, v.army);
                }
            }
        }
        l
    }

    /// Every move of army `a`'s pieces by their geometry and landing
    /// rules, king moves not yet tested against EN-CHK-2.
    pub fn pseudo_moves(&self, m: &Masks, a: u8, out: &mut Vec<Move>) {
        if self.frozen(a) {
            return;
        }
        for s in bits(m.army[a as usize]) {
            for u in self.units_at(s) {
                if u.army == a {
                    self.piece_moves(m, a, s, u, out);
                }
            }
        }
    }

    pub fn piece_moves(&self, m: &Masks, a: u8, s: Sq, u: Unit, out: &mut Vec<Move>) {
        let mv = |to: Sq, join: bool| Move {
            from: s,
            to,
            kind: u.kind,
            join,
            promo: None,
        };
        let land_on = |to: Sq, out: &mut Vec<Move>| {
            let l = self.land(m, a, s, u, to);
            if l.empty || l.capture {
                out.push(mv(to, false));
            }
            if l.join {
                out.push(mv(to, true));
            }
        };
        match u.kind {
            Piece::King => bits(KING_STEPS[s as usize]).for_each(|t| land_on(t, out)),
            Piece::Knight => bits(KNIGHT_LEAPS[s as usize]).for_each(|t| land_on(t, out)),
            Piece::Queen => bits(QUEEN_LEAPS[s as usize]).for_each(|t| land_on(t, out)),
            Piece::Rook | Piece::Bishop => {
                let dirs = if u.kind == Piece::Rook { ORTHO } else { DIAG };
                for (df, dr) in dirs {
                    let mut t = s;
                    while let Some(n) = step(t, df, dr) {
                        t = n;
                        land_on(t, out);
                        if m.occ >> t & 1 == 1 {
                            break;
                        }
                    }
                }
            }
            Piece::Pawn => {
                let (df, dr) = FORWARD[a as usize];
                let mut targets: [Option<Sq>; 3] = [None; 3];
                if let Some(t) = step(s, df, dr)
                    && m.occ >> t & 1 == 0
                {
                    targets[0] = Some(t);
                }
                for (i, (cf, cr)) in pawn_captures(a).into_iter().enumerate() {
                    if let Some(t) = step(s, cf, cr)
                        && self.land(m, a, s, u, t).capture
                    {
                        targets[i + 1] = Some(t);
                    }
                }
                for t in targets.into_iter().flatten() {
                    for promo in self.promotions(a, s, t, u) {
                        out.push(Move {
                            promo,
                            ..mv(t, false)
                        });
                    }
                }
            }
        }
    }

    /// EN-CHK-2, judged on the position after the move and its effects.
    pub fn king_move_ok(&self, a: u8, mv: Move, checkers: u64) -> bool {
        let after = self.apply(a, mv, &mut Sink::off()).pos;
        let m = after.masks();
        let att = after.attackers(&m, mv.to, a);
        if checkers == 0 {
            att == 0
        } else {
            att & checkers == 0
        }
    }

    /// The legal moves of army `a` (EN-MOV, EN-CHK-2, EN-CHK-3).
    pub fn legal_moves(&self, a: u8) -> Vec<Move> {
        let m = self.masks();
        let mut v = Vec::with_capacity(48);
        self.pseudo_moves(&m, a, &mut v);
        let checkers = self
            .live_king(&m, a)
            .map_or(0, |k| self.attackers(&m, k, a));
        v.retain(|mv| mv.kind != Piece::King || self.king_move_ok(a, *mv, checkers));
        if checkers != 0 && v.iter().any(|mv| mv.kind == Piece::King) {
            v.retain(|mv| mv.kind == Piece::King);
        }
        v
    }

    /// The king moves that pass EN-CHK-2 (for EN-CHK-3's test).
    pub fn forced_king(&self, a: u8) -> bool {
        let m = self.masks();
        let Some(k) = self.live_king(&m, a) else {
            return false;
        };
        let checkers = self.attackers(&m, k, a);
        if checkers == 0 {
            return false;
        }
        let mut v = Vec::new();
        if let Some(u) = self.unit(k, Piece::King) {
            self.piece_moves(&m, a, k, u, &mut v);
        }
        v.iter().any(|mv| self.king_move_ok(a, *mv, checkers))
    }

    /// EN-STM-1.
    pub fn stalemated(&self, a: u8) -> bool {
        let m = self.masks();
        let Some(k) = self.live_king(&m, a) else {
            return false;
        };
        if self.attackers(&m, k, a) != 0 {
            return false;
        }
        let Some(u) = self.unit(k, Piece::King) else {
            return false;
        };
        let mut any = false;
        for t in bits(KING_STEPS[k as usize]) {
            let l = self.land(&m, a, k, u, t);
            let enemy_there = self.main[t as usize].is_some_and(|v| enemies(v.army, a));
            if l.empty || (l.capture && enemy_there) {
                any = true;
                let mv = Move {
                    from: k,
                    to: t,
                    kind: Piece::King,
                    join: false,
                    promo: None,
                };
                if self.king_move_ok(a, mv, 0) {
                    return false;
                }
            }
        }
        any
    }

    pub fn add_prisoner(&mut self, captor: u8, king: u8) {
        if let Some(slot) = self.prisoners.iter_mut().find(|p| p.is_none()) {
            *slot = Some((captor, king));
        }
    }

    pub fn remove_prisoner(&mut self, king: u8) {
        let list: Vec<(u8, u8)> = self
            .prisoners
            .iter()
            .flatten()
            .copied()
            .filter(|&(_, k)| k != king)
            .collect();
        self.prisoners = [None; 4];
        for (i, p) in list.into_iter().enumerate() {
            self.prisoners[i] = Some(p);
        }
    }

    pub fn prisoner_list(&self) -> Vec<(u8, u8)> {
        self.prisoners.iter().flatten().copied().collect()
    }

    /// EN-XCH-3: where a returning king of army `a` goes. `avoid` holds
    /// squares already promised to another returning king.
    pub fn placement(&self, a: u8, thawed: &[u8], avoid: &[Sq]) -> Sq {
        let mut judge = *self;
        for &t in thawed {
            judge.armies[t as usize].frozen = false;
        }
        let m = judge.masks();
        let free = |s: Sq| m.occ >> s & 1 == 0 && !avoid.contains(&s);
        let safe = |s: Sq| free(s) && judge.attackers(&m, s, a) == 0;
        let [first, second] = THRONES[a as usize];
        if safe(first) {
            return first;
        }
        if safe(second) {
            return second;
        }
        let dist = |s: Sq| cell_of(s).king_distance(cell_of(first));
        (0..64u8)
            .filter(|&s| safe(s))
            .min_by_key(|&s| (dist(s), s))
            .or_else(|| (0..64u8).filter(|&s| free(s)).min_by_key(|&s| (dist(s), s)))
            .unwrap_or(first)
    }

    /// Plays `mv` for army `a` with every automatic effect (captures,
    /// freezing, reversion, seizing, concourse, promotion), announcing them
    /// into `ev`. The turn does not change here.
    pub fn apply(&self, a: u8, mv: Move, ev: &mut Sink) -> Applied {
        let mut p = *self;
        let mut owed = Vec::new();
        let Some(u) = p.take(mv.from, mv.kind) else {
            return Applied { pos: p, owed };
        };
        let to = mv.to as usize;
        let mut victims: Vec<Unit> = Vec::new();
        if mv.join {
            p.extra[to] = Some(u);
        } else {
            victims.extend(p.main[to].take());
            victims.extend(p.extra[to].take());
            p.main[to] = Some(u);
        }
        ev.push(|| {
            let mut e = action(
                a,
                match victims.first() {
                    None => ActionKind::Move,
                    Some(v) if v.kind == Piece::King && v.army == ally(a) => {
                        ActionKind::AllyKingCapture
                    }
                    Some(_) => ActionKind::Capture,
                },
            );
            e.card = Some(u.card());
            e.from = Some(cell_of(mv.from));
            e.to = Some(cell_of(mv.to));
            e.captured = victims.first().map(|v| v.card());
            e.also_captured = victims.iter().skip(1).map(|v| v.card()).collect();
            EventBody::Action(e)
        });
        for v in &victims {
            if v.kind != Piece::King {
                continue;
            }
            if enemies(v.army, a) {
                p.capture_king(a, v.army, ev, &mut owed);
            } else {
                let x = v.army as usize;
                p.armies[x].king = KingState::AllyCaptured;
                p.armies[x].frozen = false;
                p.armies[x].controller = p.armies[a as usize].controller;
                p.armies[x].taken_over_by = Some(a);
                let player = p.player_name(p.armies[a as usize].controller);
                ev.push(|| {
                    notice(
                        "control",
                        format!(
                            "{}'s king was taken by its ally: {} moves on under {player}'s control",
                            TITLES[x], TITLES[x]
                        ),
                    )
                });
            }
        }
        if u.kind == Piece::King && THRONES[ally(a) as usize].contains(&mv.to) {
            p.seize(a, mv.to, u, ev);
        }
        if matches!(u.kind, Piece::Bishop | Piece::Queen) {
            p.concourse(a, mv, u, ev);
        }
        if u.kind == Piece::Pawn
            && let Some(k) = mv.promo
        {
            let privileged = self.privileged(a, mv.from);
            let pawn_card = u.card();
            let new = Unit {
                kind: k,
                patron: k,
                inert: false,
                ..u
            };
            p.main[to] = Some(new);
            ev.push(|| {
                let mut e = action(a, ActionKind::Promote);
                e.card = Some(pawn_card);
                e.from = Some(cell_of(mv.to));
                e.to = Some(cell_of(mv.to));
                e.promotion = Some(new.card());
                EventBody::Action(e)
            });
            let same = p
                .all_units()
                .find(|&(s, w)| s != mv.to && w.army == a && w.kind == k);
            if privileged && let Some((s, old)) = same {
                let demoted = Unit {
                    kind: Piece::Pawn,
                    patron: k,
                    inert: in_zone(old.army, s),
                    ..old
                };
                p.replace(s, old, demoted);
                ev.push(|| {
                    let mut e = action(a, ActionKind::Demote);
                    e.card = Some(old.card());
                    e.from = Some(cell_of(s));
                    e.to = Some(cell_of(s));
                    e.promotion = Some(demoted.card());
                    EventBody::Action(e)
                });
            }
        }
        if victims.iter().any(|v| v.kind == Piece::Pawn) {
            p.promote_waiting(a, ev, &mut owed);
        }
        Applied { pos: p, owed }
    }

    fn replace(&mut self, sq: Sq, old: Unit, new: Unit) {
        let s = sq as usize;
        if self.main[s] == Some(old) {
            self.main[s] = Some(new);
        } else if self.extra[s] == Some(old) {
            self.extra[s] = Some(new);
        }
    }

    pub fn player_name(&self, controller: u8) -> &'static str {
        if self.four {
            NAMES[controller as usize]
        } else {
            TEAM_NAMES[controller as usize]
        }
    }

    /// EN-FRZ-1 and EN-CTL-3.
    fn capture_king(
        &mut self,
        captor: u8,
        x: u8,
        ev: &mut Sink,
        owed: &mut Vec<(Sq, Option<Token>)>,
    ) {
        let xi = x as usize;
        self.armies[xi].king = KingState::Prisoner(captor);
        self.armies[xi].frozen = true;
        self.add_prisoner(captor, x);
        ev.push(|| {
            notice(
                "frozen",
                format!(
                    "{} is frozen: its king is {}'s prisoner",
                    TITLES[xi], TITLES[captor as usize]
                ),
            )
        });
        let y = ally(x);
        let yi = y as usize;
        if self.armies[yi].taken_over_by != Some(x) {
            return;
        }
        self.armies[yi].taken_over_by = None;
        self.armies[yi].controller = own_controller(self.four, y);
        let player = self.player_name(self.armies[yi].controller);
        ev.push(|| {
            notice(
                "control",
                format!("{} returns to {player}'s control (EN-CTL-3)", TITLES[yi]),
            )
        });
        match self.armies[yi].king {
            KingState::AllyCaptured => {
                let sq = self.placement(y, &[], &[]);
                self.put(sq, Unit::new(y, Piece::King));
                self.armies[yi].king = KingState::OnBoard;
                owed.push((sq, self.token_without_king(sq)));
                ev.push(|| {
                    notice(
                        "king_returns",
                        format!(
                            "{}'s king returns to the board on {} (EN-CTL-3): put it there",
                            TITLES[yi],
                            square_name(sq)
                        ),
                    )
                });
            }
            KingState::Prisoner(_) | KingState::Off => {
                if !self.armies[yi].frozen {
                    self.armies[yi].frozen = true;
                    ev.push(|| {
                        notice(
                            "frozen",
                            format!(
                                "{} is frozen again: its king is still a prisoner",
                                TITLES[yi]
                            ),
                        )
                    });
                }
            }
            KingState::OnBoard => {}
        }
    }

    fn token_without_king(&self, sq: Sq) -> Option<Token> {
        let s = sq as usize;
        match (self.main[s], self.extra[s]) {
            (Some(k), Some(o)) if k.kind == Piece::King => Some(Token::Up(o.card())),
            _ => None,
        }
    }

    /// EN-CTL-1.
    fn seize(&mut self, a: u8, throne: Sq, king: Unit, ev: &mut Sink) {
        let (ai, y) = (a as usize, ally(a) as usize);
        let mut changed = false;
        if self.armies[y].controller != self.armies[ai].controller {
            self.armies[y].controller = self.armies[ai].controller;
            changed = true;
        }
        let thaw = self.armies[y].frozen
            && self.armies[y].withdrawn != Some(Withdrawal::Bare)
            && self.armies[y].king != KingState::OnBoard;
        if thaw {
            self.armies[y].frozen = false;
            changed = true;
        }
        if !changed {
            return;
        }
        self.armies[y].taken_over_by = Some(a);
        ev.push(|| {
            let mut e = action(a, ActionKind::Seize);
            e.card = Some(king.card());
            e.from = Some(cell_of(throne));
            e.to = Some(cell_of(throne));
            EventBody::Action(e)
        });
        if thaw {
            let player = self.player_name(self.armies[ai].controller);
            ev.push(|| {
                notice(
                    "thawed",
                    format!(
                        "{} thaws and moves again, under {player}'s control",
                        TITLES[y]
                    ),
                )
            });
        }
    }

    /// EN-CON-1/2: every 2×2 block the move completes.
    fn concourse(&mut self, a: u8, mv: Move, u: Unit, ev: &mut Sink) {
        let (tf, tr) = ((mv.to % 8) as i8, (mv.to / 8) as i8);
        for f0 in [tf - 1, tf] {
            for r0 in [tr - 1, tr] {
                if !(0..7).contains(&f0) || !(0..7).contains(&r0) {
                    continue;
                }
                let block = [(f0, r0), (f0 + 1, r0), (f0, r0 + 1), (f0 + 1, r0 + 1)];
                let others: Vec<Sq> = block
                    .iter()
                    .map(|&(f, r)| (r * 8 + f) as Sq)
                    .filter(|&s| s != mv.to)
                    .collect();
                let mut friend = None;
                let mut foes = Vec::new();
                let mut ok = true;
                for &s in &others {
                    match (self.main[s as usize], self.extra[s as usize]) {
                        (Some(v), None) if v.kind == u.kind && !self.frozen(v.army) => {
                            if enemies(v.army, a) {
                                foes.push((s, v));
                            } else if friend.is_none() {
                                friend = Some((s, v));
                            } else {
                                ok = false;
                            }
                        }
                        _ => ok = false,
                    }
                }
                let (Some((fs, fv)), true, 2) = (friend, ok, foes.len()) else {
                    continue;
                };
                for &(s, _) in &foes {
                    self.main[s as usize] = None;
                }
                self.main[fs as usize] = Some(Unit { army: a, ..fv });
                ev.push(|| {
                    let mut e = action(a, ActionKind::Concourse);
                    e.card = Some(u.card());
                    e.from = Some(cell_of(mv.from));
                    e.to = Some(cell_of(mv.to));
                    e.captured = Some(foes[0].1.card());
                    e.also_captured = vec![foes[1].1.card()];
                    EventBody::Action(e)
                });
            }
        }
    }

    /// EN-PRO-3: armies now below four pawns promote their waiting pawns.
    /// Another army's swap is owed; the mover's is part of its move.
    fn promote_waiting(&mut self, mover: u8, ev: &mut Sink, owed: &mut Vec<(Sq, Option<Token>)>) {
        for x in 0..4u8 {
            if self.count(x, Piece::Pawn) >= 4 {
                continue;
            }
            for s in 0..64u8 {
                let Some(w) = self.main[s as usize] else {
                    continue;
                };
                if w.army != x || w.kind != Piece::Pawn || w.inert || !in_zone(x, s) {
                    continue;
                }
                let k = promoted_type(s, w);
                let new = Unit {
                    kind: k,
                    patron: k,
                    ..w
                };
                self.main[s as usize] = Some(new);
                if x != mover {
                    owed.push((s, Some(Token::Up(w.card()))));
                }
                ev.push(|| {
                    let mut e = action(x, ActionKind::Promote);
                    e.card = Some(w.card());
                    e.from = Some(cell_of(s));
                    e.to = Some(cell_of(s));
                    e.promotion = Some(new.card());
                    EventBody::Action(e)
                });
            }
        }
    }
}

/// EN-PRO-4: the patron's type, or the throne partner's (the Knight) on any
/// throne square.
pub fn promoted_type(to: Sq, pawn: Unit) -> Piece {
    if is_throne(to) {
        Piece::Knight
    } else if pawn.patron == Piece::King || pawn.patron == Piece::Pawn {
        Piece::Queen
    } else {
        pawn.patron
    }
}

/// EN-MOV-6.
pub fn may_capture(mover: Piece, victim: Piece, from: Sq, to: Sq) -> bool {
    match (mover, victim) {
        (Piece::Queen, Piece::Queen) | (Piece::Bishop, Piece::Bishop) => false,
        (Piece::Queen, Piece::Bishop) | (Piece::Bishop, Piece::Queen) => {
            is_aries(from) == is_aries(to)
        }
        _ => true,
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Land {
    pub empty: bool,
    pub capture: bool,
    pub join: bool,
}

/// EN-DIV-1: which pieces a roll moves.
pub fn roll_allows(roll: u8, kind: Piece) -> bool {
    match roll {
        1 => matches!(kind, Piece::King | Piece::Pawn),
        2 => kind == Piece::Knight,
        3 => kind == Piece::Bishop,
        4 => kind == Piece::Queen,
        5 => kind == Piece::Rook,
        _ => kind == Piece::Pawn,
    }
}

pub fn roll_needs(roll: u8) -> &'static str {
    match roll {
        1 => "king or pawn",
        2 => "knight",
        3 => "bishop",
        4 => "queen",
        5 => "rook",
        _ => "pawn",
    }
}
