//! The learned identifier's embedded network (`pipeline::learned`): it
//! loads, and names the committed patches of `fixtures/identifier/` as
//! docs/vision.md says it does: none wrong, at least 50% of the cards named
//! right (the weights committed now name 57 of 105) and the nearest kind
//! right for at least 93% (now 99), no outline that holds no card named.
//!
//! The patches (64×96, as `Patch::from_frame` cuts them) were cut from
//! held-out renders by `cargo run --release --example identifier_data --
//! --out /tmp/x --split heldout --frames 700 --seed 1 --png
//! fixtures/identifier --png-count 120`: tables of wood and linen, warm
//! lamps, the fixture sets' four learned decks and random decks the network
//! never trained on. Each file is `NNN-<truth>.png` in a folder named for
//! its deck; the truth is a token, `back`, `not-a-card` or `glare-blank`.

use std::path::Path;

use arbiter::vision::pipeline::learned::{LearnedDeck, Network, PATCH_H, PATCH_W, Patch};
use arbiter_core::table::{Card, Token};
use arbiter_testkit::fixtures::reference_faces;

#[derive(Default, Debug)]
struct Tally {
    cards: usize,
    right: usize,
    nearest: usize,
    wrong: Vec<String>,
    glare_blank: usize,
    not_cards: usize,
}

#[test]
fn the_embedded_network_names_the_committed_patches_as_documented() {
    let net = Network::embedded().expect("the embedded network loads");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/identifier");
    let mut tally = Tally::default();
    let mut decks: Vec<_> = std::fs::read_dir(&root)
        .expect("fixtures/identifier")
        .map(|e| e.expect("a deck folder").path())
        .collect();
    decks.sort();
    for dir in decks {
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        let deck = LearnedDeck::from_faces(net, &reference_faces(&name));
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("a deck folder")
            .map(|e| e.expect("a patch").path())
            .collect();
        files.sort();
        for f in files {
            let stem = f
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("")
                .to_string();
            let truth = stem.split_once('-').map_or("", |x| x.1).to_string();
            let img = image::open(&f).expect("a patch image").to_rgb8();
            assert_eq!(
                img.dimensions(),
                (PATCH_W as u32, PATCH_H as u32),
                "{}: a patch as Patch::from_frame cuts it",
                f.display()
            );
            let naming = deck.name(net, &Patch(img.into_raw()));
            let said = naming.token;
            match truth.as_str() {
                "not-a-card" => {
                    tally.not_cards += 1;
                    if let Some(t) = said {
                        tally.wrong.push(format!("{name}/{stem}: named {t}"));
                    }
                }
                "glare-blank" => {
                    tally.glare_blank += 1;
                    if let Some(t) = said {
                        tally.wrong.push(format!("{name}/{stem}: named {t}"));
                    }
                }
                t => {
                    let truth = if t == "back" {
                        Token::Down
                    } else {
                        Token::parse(t)
                            .ok()
                            .flatten()
                            .expect("a token in the file name")
                    };
                    tally.cards += 1;
                    tally.nearest += usize::from(naming.nearest == truth);
                    match said {
                        Some(s) if s == truth => tally.right += 1,
                        Some(s) => tally.wrong.push(format!("{name}/{stem}: named {s}")),
                        None => {}
                    }
                }
            }
        }
    }
    // The figures, for `cargo test --test identifier -- --nocapture`.
    eprintln!("{tally:?}");
    assert!(
        tally.cards >= 60,
        "too few committed card patches: {tally:?}"
    );
    assert!(tally.wrong.is_empty(), "named wrong: {:?}", tally.wrong);
    // On these patches the committed weights name 57 of the 105 cards
    // (54.3%; the weights before, 52), none wrong. A retrained network must
    // do at least about as well.
    let rate = tally.right as f32 / tally.cards as f32;
    assert!(
        rate >= 0.50,
        "named right {:.1}% of the cards (at least 50%): {tally:?}",
        100.0 * rate
    );
    // And the kind nearest the card, whatever the margin, is right for 99
    // (94.3%; the weights before, 101).
    let nearest = tally.nearest as f32 / tally.cards as f32;
    assert!(
        nearest >= 0.93,
        "the nearest kind right for {:.1}% of the cards (docs: at least 93%): {tally:?}",
        100.0 * nearest
    );
}

#[test]
fn each_reference_face_of_the_printable_deck_is_named_as_itself() {
    let net = Network::embedded().expect("the embedded network loads");
    let faces = arbiter::vision::templates::printable_faces();
    let deck = LearnedDeck::from_faces(net, &faces);
    for (token, face) in &faces {
        let patch = Patch::from_face(face);
        let naming = deck.name(net, &patch);
        assert_eq!(naming.nearest, *token, "the face of {token}");
        // Either way up.
        assert_eq!(
            deck.name(net, &patch.turned()).nearest,
            *token,
            "{token} upside down"
        );
    }
}

/// The renderer's glare truth: a card under a lamp's core has its print
/// washed out and is glare-blank; a card far from it, or any card with no
/// lamp, keeps its print.
#[test]
fn the_renderer_records_how_much_print_a_lamp_washed_out() {
    use arbiter_core::table::{Cell, Table};
    use arbiter_testkit::scene::{GLARE_BLANK, Glare, Look, SceneParams, felt, render};
    let table = Table::parse_grid("wK bQ rR uB", Cell::new(0, 0)).expect("a table");
    let deck = |c: Option<Card>| {
        c.map_or_else(
            arbiter::deck::print::classic::back,
            arbiter::deck::print::classic::face,
        )
    };
    let mut params = SceneParams {
        width: 640,
        height: 360,
        pitch_px: 90.0,
        ..SceneParams::clean()
    };
    let plain = render(&table, &params, &deck, &felt(64, 1));
    assert!(
        plain
            .truth
            .iter()
            .all(|t| t.print_washed == 0.0 && t.glare_clipped == 0.0)
    );
    // The lamp's core on the leftmost card.
    let first = plain.truth[0].centre_px;
    params.look = Look {
        glare: Some(Glare {
            at: (first.0 / 640.0, first.1 / 360.0),
            radius: 0.12,
            strength: 2.5,
        }),
        ..Look::default()
    };
    let lit = render(&table, &params, &deck, &felt(64, 1));
    let under = &lit.truth[0];
    let far = &lit.truth[3];
    assert!(
        under.print_washed >= GLARE_BLANK,
        "under the lamp: {under:?}"
    );
    assert!(under.glare_clipped > 0.5, "under the lamp: {under:?}");
    assert!(far.print_washed < 0.05, "far from the lamp: {far:?}");
}

/// The learned identifier wired in: a learned deck's model names a card
/// its templates find nearest but not clearly when the network seconds it.
/// Over the varied sets' frames in dim light and glare, where the
/// templates alone leave the most cards `??`, at every card's true
/// outline: the seconded reader names more cards than the templates
/// alone, never one the templates named otherwise, and none wrong (a
/// glare-blank card named as its own kind is right: the print left shows
/// it). Over all the varied sets (`read_at_truth`, docs/vision.md) it
/// names 96.7% where the templates alone name 95.5%.
#[test]
fn a_learned_deck_names_the_cards_its_templates_leave_unsure_when_the_network_seconds_them() {
    use arbiter::vision::cards::Identify;
    use arbiter_testkit::fixtures::tables::{DeckModels, rendered_frames};
    let mut models = DeckModels::default();
    let mut alone = std::collections::HashMap::new();
    let (mut cards, mut right_alone, mut right) = (0, 0, 0);
    let mut wrong = Vec::new();
    let frames = rendered_frames()
        .filter(|(_, f)| f.deck != "printed" && (f.light == "dim" || f.light == "glare"))
        .take(12);
    for (scene, fac) in frames {
        let model = models.get(&fac.deck).expect("a fixture deck");
        assert!(model.has_second_reader(), "{}: no faces kept", fac.deck);
        let templates = alone
            .entry(fac.deck.clone())
            .or_insert_with(|| model.templates_alone());
        for t in scene.truth.iter().filter(|t| t.visible >= 0.99) {
            cards += 1;
            let before = templates.identify_in(&scene.image, &t.corners_px).0;
            let now = model.identify_in(&scene.image, &t.corners_px).0;
            right_alone += usize::from(before == Some(t.token));
            right += usize::from(now == Some(t.token));
            if before.is_some() && now != before {
                wrong.push(format!("{}: {before:?} became {now:?}", t.token));
            }
            if now.is_some_and(|n| n != t.token) {
                wrong.push(format!("{} read as {now:?} ({})", t.token, fac.deck));
            }
        }
    }
    eprintln!("{cards} cards: templates alone {right_alone} right, seconded {right}");
    assert!(cards >= 150, "too few cards rendered: {cards}");
    assert!(wrong.is_empty(), "{wrong:?}");
    assert!(
        right > right_alone,
        "the second reader named nothing more: {right} of {cards} (alone {right_alone})"
    );
}
