//! The coded deck read end to end: tables of the printable deck rendered
//! by the scene renderer, found and named by their codes alone
//! (`arbiter::vision::coded`), placed on cells by the recogniser, and one
//! place read again from a crop as tracking does.

use arbiter::deck::print::{back, face};
use arbiter::table::{Card, Cell, Table};
use arbiter::vision::coded;
use arbiter::vision::recognise::Recogniser;
use arbiter_testkit::accuracy::{Truth, score};
use arbiter_testkit::scene::{SceneParams, felt, render};
use image::RgbImage;

fn coded_image(card: Option<Card>) -> RgbImage {
    card.map_or_else(back, face)
}

fn table(text: &str) -> Table {
    Table::parse_grid(text, Cell::new(0, 0)).unwrap()
}

fn centre(o: &[(f32, f32); 4]) -> (f32, f32) {
    let (x, y) = o.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
    (x / 4.0, y / 4.0)
}

/// A rendered table of the coded deck: every card found once, named
/// right, where it lies.
#[test]
fn every_card_of_a_table_is_found_once_and_named() {
    let t = table("wK bQ ## rB\nuN yP wR ##\nbK ## rQ uB\n## wN bP yR\n");
    for params in [
        SceneParams {
            pitch_px: 70.0,
            ..SceneParams::clean()
        },
        SceneParams {
            pitch_px: 60.0,
            layout_rotation_deg: 23.0,
            tilt_deg: 20.0,
            blur_sigma: 0.8,
            jpeg_quality: Some(70),
            ..SceneParams::clean()
        },
    ] {
        let s = render(&t, &params, &coded_image, &felt(128, 3));
        let found = coded::cards(&s.image);
        assert_eq!(found.len(), s.truth.len(), "{found:?}");
        for truth in &s.truth {
            let near = found
                .iter()
                .find(|c| {
                    let (x, y) = c.centre;
                    (x - truth.centre_px.0).hypot(y - truth.centre_px.1) < 5.0
                })
                .unwrap_or_else(|| panic!("{:?} not found", truth.cell));
            assert_eq!(near.token, Some(truth.token), "{:?}", truth.cell);
            assert!(near.doubt.is_none());
        }
    }
}

/// Through the recogniser, the cards land on their cells: every cell of
/// the table read right (up to the lattice's own origin), nothing else.
#[test]
fn the_coded_recogniser_reads_every_cell_of_a_table() {
    let t = table("wK bQ ## rB uP\nuN yP wR ## bN\nbK ## rQ uB wP\n## wN bP yR rK\n");
    for params in [
        SceneParams {
            pitch_px: 50.0,
            width: 960,
            height: 540,
            blur_sigma: 0.8,
            jpeg_quality: Some(75),
            ..SceneParams::clean()
        },
        SceneParams {
            pitch_px: 64.0,
            layout_rotation_deg: 31.0,
            tilt_deg: 25.0,
            per_card_skew_deg: 6.0,
            ..SceneParams::clean()
        },
    ] {
        let s = render(&t, &params, &coded_image, &felt(128, 3));
        let rec = Recogniser::coded().recognise(&s.image);
        let sc = score(
            &Truth {
                busy: false,
                table: t.clone(),
            },
            &rec,
        );
        assert_eq!(sc.confident_wrong, 0, "{:?}", sc.wrong_cells);
        assert_eq!(sc.correct, 20, "{sc}: {rec:?}");
    }
}

/// Re-reading one place finds the card there, from the crop alone.
#[test]
fn a_card_is_read_again_where_it_lies() {
    let t = table("wK bQ\nrB uN\n");
    let params = SceneParams {
        pitch_px: 80.0,
        ..SceneParams::clean()
    };
    let s = render(&t, &params, &coded_image, &felt(128, 3));
    for truth in &s.truth {
        let (token, _, at) = coded::read_at(&s.image, &truth.corners_px, 0.2).expect("read again");
        assert_eq!(token, truth.token);
        let (x, y) = centre(&at);
        assert!((x - truth.centre_px.0).hypot(y - truth.centre_px.1) < 4.0);
    }
}

/// A lamp's glare that washes a card's face out, codes and all, leaves
/// `??` where it lies, said to be glare; a card whose codes still show
/// through it, and the cards it spares, read right.
#[test]
fn a_card_glare_washed_out_is_unreadable_for_glare() {
    use arbiter_testkit::scene::{GLARE_BLANK, Glare};
    let t = table("wK bQ ## rB uP\nuN yP wR ## bN\nbK ## rQ uB wP\n");
    let mut params = SceneParams {
        pitch_px: 70.0,
        ..SceneParams::clean()
    };
    let lamp_off = params.clone();
    params.look.glare = Some(Glare {
        at: (0.5, 0.5),
        radius: 0.15,
        strength: 1.5,
    });
    let s = render(&t, &params, &coded_image, &felt(128, 3));
    let found = coded::cards(&s.image);
    let blank: Vec<_> = s
        .truth
        .iter()
        .filter(|c| c.glare_clipped >= GLARE_BLANK)
        .collect();
    assert!(!blank.is_empty(), "the lamp washes no card out");
    for truth in &s.truth {
        let (tx, ty) = truth.centre_px;
        let near = found
            .iter()
            .find(|c| (c.centre.0 - tx).hypot(c.centre.1 - ty) < 0.5 * 70.0);
        if truth.glare_clipped >= GLARE_BLANK {
            // Its glyph is gone; its codes, black on white, may still show.
            let near = near.unwrap_or_else(|| panic!("{:?}: nothing where glare lies", truth.cell));
            match near.token {
                Some(token) => assert_eq!(token, truth.token, "{:?}", truth.cell),
                None => assert_eq!(near.doubt, Some(coded::Doubt::Glare), "{:?}", truth.cell),
            }
        } else if let Some(card) = near.filter(|c| c.token.is_some()) {
            assert_eq!(card.token, Some(truth.token), "{:?}", truth.cell);
        }
    }
    assert!(
        found.iter().any(|c| c.doubt == Some(coded::Doubt::Glare)),
        "no card is unreadable for glare: {found:?}"
    );
    assert!(found.iter().filter(|c| c.token.is_some()).count() >= 10);
    // The players are told why, and what to do about it; the same table
    // without the lamp has nothing to say.
    let read = Recogniser::coded().recognise(&s.image);
    let note = read.note.expect("the glare is said");
    assert!(
        note.contains("glare") && note.contains("move the lamp"),
        "{note}"
    );
    let unlit = render(&t, &lamp_off, &coded_image, &felt(128, 3));
    assert_eq!(Recogniser::coded().recognise(&unlit.image).note, None);
}
