//! The workspace's crates are its layers (docs/architecture.md): each
//! depends only on those below it, and the core on no image, terminal or
//! serial crate. The compiler keeps code from reaching past a crate's
//! manifest; this keeps the manifests honest.

use std::collections::BTreeSet;
use std::path::Path;

/// The normal dependencies a crate's manifest names.
fn dependencies(manifest: &str) -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(manifest);
    let text = std::fs::read_to_string(&path).expect("the manifest reads");
    let toml: toml::Table = text.parse().expect("the manifest parses");
    toml.get("dependencies")
        .and_then(|d| d.as_table())
        .map(|d| d.keys().cloned().collect())
        .unwrap_or_default()
}

const DEVICES: [&str; 7] = [
    "image",
    "imageproc",
    "ratatui",
    "crossterm",
    "serialport",
    "nix",
    "nokhwa",
];

#[test]
fn the_core_depends_on_no_device_screen_or_other_layer() {
    let core = dependencies("crates/arbiter-core/Cargo.toml");
    assert!(!core.is_empty());
    for d in &core {
        assert!(
            !DEVICES.contains(&d.as_str()) && !d.starts_with("arbiter") && d != "firmware-protocol",
            "arbiter-core depends on {d}"
        );
    }
}

#[test]
fn the_device_crates_stand_on_the_core_only() {
    // The vision crate's webcam is its driver, a layer below it: the
    // camera's frames come from it, and it knows nothing of cards.
    for (manifest, own, drivers) in [
        (
            "crates/arbiter-vision/Cargo.toml",
            &["image", "imageproc"][..],
            &["arbiter-webcam"][..],
        ),
        (
            "crates/arbiter-mat/Cargo.toml",
            &["serialport", "nix"][..],
            &[][..],
        ),
    ] {
        let deps = dependencies(manifest);
        assert!(deps.contains("arbiter-core"), "{manifest}");
        for d in &deps {
            let layer =
                d.starts_with("arbiter") && d != "arbiter-core" && !drivers.contains(&d.as_str());
            let foreign_device = DEVICES.contains(&d.as_str()) && !own.contains(&d.as_str());
            assert!(!layer && !foreign_device, "{manifest} depends on {d}");
        }
    }
}

/// The webcam driver stands on no layer of ours, so that testing it builds
/// nokhwa and nothing of the vision stack; nokhwa is its alone.
#[test]
fn the_webcam_stands_on_no_layer_and_owns_nokhwa() {
    let deps = dependencies("crates/arbiter-webcam/Cargo.toml");
    assert!(deps.contains("nokhwa"));
    for d in &deps {
        assert!(
            !d.starts_with("arbiter") && d != "firmware-protocol",
            "arbiter-webcam depends on {d}"
        );
    }
    for manifest in [
        "Cargo.toml",
        "crates/arbiter-core/Cargo.toml",
        "crates/arbiter-vision/Cargo.toml",
        "crates/arbiter-mat/Cargo.toml",
        "crates/arbiter-web/Cargo.toml",
    ] {
        assert!(
            !dependencies(manifest).contains("nokhwa"),
            "{manifest} reaches nokhwa past the webcam crate"
        );
    }
}

/// The spectator page's server stands on the core only: no device, no
/// screen, no other layer; and the core knows nothing of the web.
#[test]
fn the_web_crate_stands_on_the_core_only() {
    let deps = dependencies("crates/arbiter-web/Cargo.toml");
    assert!(deps.contains("arbiter-core"));
    for d in &deps {
        let layer = d.starts_with("arbiter") && d != "arbiter-core";
        assert!(
            !layer && !DEVICES.contains(&d.as_str()),
            "arbiter-web depends on {d}"
        );
    }
    let core = dependencies("crates/arbiter-core/Cargo.toml");
    for web in ["axum", "tokio", "hyper"] {
        assert!(!core.contains(web), "arbiter-core depends on {web}");
    }
}

/// A dependency table of a manifest (`dependencies`, `dev-dependencies`):
/// each crate's entry, as written.
fn table(manifest: &str, key: &str) -> toml::Table {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(manifest);
    let text = std::fs::read_to_string(&path).expect("the manifest reads");
    let toml: toml::Table = text.parse().expect("the manifest parses");
    toml.get(key)
        .and_then(|d| d.as_table())
        .cloned()
        .unwrap_or_default()
}

/// Whether a dependency entry turns on `feature`.
fn turns_on(entry: &toml::Value, feature: &str) -> bool {
    entry
        .get("features")
        .and_then(|f| f.as_array())
        .is_some_and(|f| f.iter().any(|x| x.as_str() == Some(feature)))
}

#[test]
fn test_support_reaches_the_product_only_as_a_dev_dependency() {
    // The test-support crate stands on every layer, and only the tests,
    // benchmarks and examples stand on it.
    let testkit = dependencies("crates/arbiter-testkit/Cargo.toml");
    for layer in ["arbiter-core", "arbiter-vision", "arbiter-mat"] {
        assert!(testkit.contains(layer), "arbiter-testkit lacks {layer}");
    }
    let manifests = [
        "Cargo.toml",
        "crates/arbiter-core/Cargo.toml",
        "crates/arbiter-vision/Cargo.toml",
        "crates/arbiter-mat/Cargo.toml",
    ];
    for manifest in manifests {
        for (name, entry) in table(manifest, "dependencies") {
            assert_ne!(name, "arbiter-testkit", "{manifest} ships the test support");
            assert!(
                !turns_on(&entry, "testkit"),
                "{manifest} turns on {name}'s testkit for the product"
            );
        }
    }
    assert!(table("Cargo.toml", "dev-dependencies").contains_key("arbiter-testkit"));
}
