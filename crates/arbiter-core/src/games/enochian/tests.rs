use super::rules::*;
use super::*;

fn sq(s: &str) -> Sq {
    parse_square(s).unwrap()
}

#[test]
fn squares_cells_and_networks_follow_en_brd_1_and_en_net_1() {
    assert_eq!(sq("a1"), 0);
    assert_eq!(sq("h8"), 63);
    assert_eq!(cell_of(sq("e1")), Cell::new(4, 7));
    assert_eq!(sq_of(Cell::new(0, 0)), Some(sq("a8")));
    assert_eq!(square_name(39), "h5");
    for (s, aries) in [("b1", true), ("a1", false), ("a2", true), ("h8", false)] {
        assert_eq!(is_aries(sq(s)), aries, "{s}");
    }
    assert_eq!(THRONES[RED as usize], [sq("h5"), sq("h4")]);
    assert_eq!(THRONES[YELLOW as usize], [sq("a4"), sq("a5")]);
}

#[test]
fn pawns_step_and_capture_per_army_and_patrons_follow_lanes() {
    assert_eq!(pawn_captures(RED), [(-1, -1), (-1, 1)]);
    assert_eq!(pawn_captures(YELLOW), [(1, -1), (1, 1)]);
    assert!(in_zone(BLUE, sq("a8")) && in_zone(RED, sq("a3")));
    assert!(in_zone(BLACK, sq("h1")) && in_zone(YELLOW, sq("h6")));
    assert_eq!(lane_patron(BLUE, sq("e4")), Piece::Knight);
    assert_eq!(lane_patron(RED, sq("c6")), Piece::Rook);
    assert_eq!(lane_patron(BLACK, sq("c2")), Piece::Rook);
    assert_eq!(lane_patron(YELLOW, sq("e4")), Piece::Knight);
    assert_eq!(lane_patron(BLUE, sq("a7")), Piece::Queen);
}

#[test]
fn the_queen_leaps_exactly_two_and_attacks_over_pieces() {
    let g = Enochian::new(Options::default());
    let p = g.position();
    let m = p.masks();
    let q: Vec<Sq> = g
        .legal_moves()
        .iter()
        .filter(|mv| mv.kind == Piece::Queen)
        .map(|mv| mv.to)
        .collect();
    let want: Vec<Sq> = ["a1", "a3", "c3", "e3"].iter().map(|s| sq(s)).collect();
    assert_eq!(q, want, "c1 leaps to a1, a3 (a capture), c3 and e3 only");
    // Red's queen on h3 attacks f1 over g2.
    assert_ne!(p.attackers(&m, sq("f1"), BLUE) & (1 << sq("h3")), 0);
    assert!(g.legal_moves().iter().all(|mv| mv.kind != Piece::King));
}

#[test]
fn frozen_pieces_block_but_neither_attack_nor_fall() {
    let mut p = Pos::empty(true);
    p.put(sq("e1"), Unit::new(BLUE, Piece::King));
    p.put(sq("e4"), Unit::new(RED, Piece::Rook));
    p.put(sq("e3"), Unit::new(BLACK, Piece::Knight));
    p.put(sq("h8"), Unit::new(RED, Piece::King));
    p.put(sq("a8"), Unit::new(YELLOW, Piece::King));
    p.armies[BLACK as usize].frozen = true;
    p.armies[BLACK as usize].king = KingState::Off;
    let m = p.masks();
    assert_eq!(
        p.attackers(&m, sq("e1"), BLUE),
        0,
        "the frozen knight blocks"
    );
    assert!(
        !p.legal_moves(RED).iter().any(|mv| mv.to == sq("e3")),
        "nobody captures a frozen piece"
    );
    p.armies[RED as usize].frozen = true;
    let m = p.masks();
    assert_eq!(
        p.attackers(&m, sq("e2"), BLUE),
        0,
        "frozen pieces attack nothing"
    );
}

#[test]
fn a_returning_king_avoids_taken_and_attacked_thrones() {
    let mut p = Pos::empty(true);
    p.put(sq("e1"), Unit::new(BLACK, Piece::Knight));
    assert_eq!(
        p.placement(BLUE, &[], &[]),
        sq("d1"),
        "e1 taken: the other throne"
    );
    p.put(sq("a1"), Unit::new(RED, Piece::Rook));
    // d1 is attacked along rank 1 (e1 shields f1): the nearest safe
    // square, lowest index first.
    assert_eq!(p.placement(BLUE, &[], &[]), sq("f1"));
    assert_eq!(p.placement(BLUE, &[], &[sq("f1")]), sq("d2"));
}

#[test]
fn the_start_has_thirty_six_pieces_and_nothing_owed() {
    let g = Enochian::new(Options::default());
    assert_eq!(g.position().all_units().count(), 36);
    assert!(g.owed().is_empty() && g.intro_events().is_empty());
    assert_eq!(g.acting(), BLUE);
    assert_eq!(g.table().len(), 32);
}
