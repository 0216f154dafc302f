//! Trees that cross the FFI as flat node lists (filters and GC rules), and the one check that
//! makes such a list a tree before anything recursive sees it.
//!
//! Why flat: a recursive uniffi enum is written by the generated Kotlin and read by the Rust
//! scaffolding with one recursive call per level, so a hand-built value a few hundred levels
//! deep overflowed a native stack and killed the JVM, whatever the Kotlin API checked. A node
//! list has no recursive generated type at all: the glue reads a sequence, and this module
//! checks it iteratively.
//!
//! Invariants checked by [`check`]: the list is non-empty and at most `max_nodes` long; the
//! root is the last node; every child index is smaller than its parent's (post-order, so no
//! cycle can be expressed); every node but the root is the child of exactly one node (no
//! sharing, no orphans); no path from the root is longer than `max_depth` nodes (the root is
//! level 1, as the core counts). Only then is the core's recursive type built, and it is then
//! at most `max_depth` deep.

use sparsetable::limits::TreeLimits;
use sparsetable::Error;

/// The limits and messages of one kind of tree: the core's (`limits::FILTER_TREE`,
/// `limits::GC_RULE_TREE`), so every front-end reports the same words.
pub(crate) type Shape = TreeLimits;

/// Checks that `children(i)` (the child indices of node `i`, for `i < len`) describe a tree
/// within `shape`'s limits, rooted at the last node; see the module invariants.
///
/// # Errors
/// `INVALID_ARGUMENT` naming the broken rule.
pub(crate) fn check<'a>(
    len: usize,
    children: impl Fn(usize) -> Vec<u32> + 'a,
    shape: &Shape,
) -> Result<(), Error> {
    let what = shape.what;
    if len == 0 {
        return Err(Error::invalid_argument(format!("{what}: no nodes")));
    }
    if len > shape.max_nodes {
        return Err(shape.too_many());
    }
    let mut used = vec![false; len];
    // Height of each node's subtree, leaves counting 1: the root's is the tree's depth.
    let mut height = vec![1usize; len];
    for i in 0..len {
        for c in children(i) {
            let c = c as usize;
            if c >= i {
                return Err(Error::invalid_argument(format!(
                    "{what}: node {i} names node {c} as a member; members must come before \
                     the node that holds them"
                )));
            }
            if used[c] {
                return Err(Error::invalid_argument(format!(
                    "{what}: node {c} is a member of more than one node"
                )));
            }
            used[c] = true;
            height[i] = height[i].max(height[c] + 1);
        }
        if height[i] > shape.max_depth {
            return Err(shape.too_deep());
        }
    }
    if let Some(orphan) = used[..len - 1].iter().position(|u| !u) {
        return Err(Error::invalid_argument(format!(
            "{what}: node {orphan} is not part of the tree (the root is the last node)"
        )));
    }
    Ok(())
}

/// Takes built node `i` out of `built` (each is taken once: [`check`] proved it).
pub(crate) fn take<T>(built: &mut [Option<T>], i: u32) -> Result<T, Error> {
    built
        .get_mut(i as usize)
        .and_then(Option::take)
        .ok_or_else(|| {
            Error::new(
                sparsetable::Code::Internal,
                format!("tree node {i} taken twice"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> Shape {
        TreeLimits::new("t", 3, 10, "deeper than", "nodes")
    }

    fn run(kids: &[&[u32]]) -> Result<(), Error> {
        check(kids.len(), |i| kids[i].to_vec(), &shape())
    }

    #[test]
    fn trees_pass_and_every_malformed_list_is_invalid_argument() {
        assert!(run(&[&[], &[], &[0, 1]]).is_ok());
        assert!(run(&[&[], &[0], &[1]]).is_ok()); // depth 3
        let bad: [&[&[u32]]; 6] = [
            &[],
            &[&[], &[0], &[1], &[2]], // depth 4
            &[&[0]],                  // self reference
            &[&[], &[0], &[0]],       // shared member
            &[&[], &[]],              // orphan
            &[&[1], &[]],             // forward reference
        ];
        for bad in bad {
            let e = run(bad).unwrap_err();
            assert_eq!(e.code(), sparsetable::Code::InvalidArgument, "{bad:?}");
        }
        let long: Vec<&[u32]> = vec![&[]; 11];
        assert_eq!(run(&long).unwrap_err().message(), "t: more than 10 nodes");
    }

    #[test]
    fn a_hundred_thousand_levels_are_refused_without_recursion() {
        let n = 100_000;
        let e = check(
            n,
            |i| if i == 0 { vec![] } else { vec![i as u32 - 1] },
            &shape(),
        )
        .unwrap_err();
        assert_eq!(e.message(), "t: more than 10 nodes");
        let deep = TreeLimits::new("t", 3, usize::MAX, "deeper than", "nodes");
        let e = check(
            n,
            |i| if i == 0 { vec![] } else { vec![i as u32 - 1] },
            &deep,
        )
        .unwrap_err();
        assert_eq!(e.message(), "t: deeper than 3 levels");
    }
}
