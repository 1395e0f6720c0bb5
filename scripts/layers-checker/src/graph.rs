//! Circles in a directed graph: its strongly connected components of more
//! than one node (Tarjan's algorithm), each sorted, in a stable order.

use std::collections::{BTreeMap, BTreeSet};

/// The circles of `graph` (node -> the nodes it points at). Edges to nodes
/// that are not keys are ignored; self-edges are not circles.
pub fn circles<N: Ord + Copy>(graph: &BTreeMap<N, BTreeSet<N>>) -> Vec<BTreeSet<N>> {
    struct State<N> {
        index: BTreeMap<N, usize>,
        low: BTreeMap<N, usize>,
        stack: Vec<N>,
        on_stack: BTreeSet<N>,
        out: Vec<BTreeSet<N>>,
    }
    fn visit<N: Ord + Copy>(n: N, g: &BTreeMap<N, BTreeSet<N>>, s: &mut State<N>) {
        let i = s.index.len();
        s.index.insert(n, i);
        s.low.insert(n, i);
        s.stack.push(n);
        s.on_stack.insert(n);
        for &m in g.get(&n).into_iter().flatten() {
            if !g.contains_key(&m) || m == n {
                continue;
            }
            if !s.index.contains_key(&m) {
                visit(m, g, s);
                let lm = s.low[&m];
                let ln = s.low.entry(n).or_insert(lm);
                *ln = (*ln).min(lm);
            } else if s.on_stack.contains(&m) {
                let im = s.index[&m];
                let ln = s.low.entry(n).or_insert(im);
                *ln = (*ln).min(im);
            }
        }
        if s.low[&n] == s.index[&n] {
            let mut scc = BTreeSet::new();
            while let Some(m) = s.stack.pop() {
                s.on_stack.remove(&m);
                scc.insert(m);
                if m == n {
                    break;
                }
            }
            if scc.len() > 1 {
                s.out.push(scc);
            }
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for &n in graph.keys() {
        if !s.index.contains_key(&n) {
            visit(n, graph, &mut s);
        }
    }
    s.out.sort();
    s.out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(edges: &[(u8, u8)]) -> BTreeMap<u8, BTreeSet<u8>> {
        let mut g: BTreeMap<u8, BTreeSet<u8>> = BTreeMap::new();
        for &(a, b) in edges {
            g.entry(a).or_default().insert(b);
            g.entry(b).or_default();
        }
        g
    }

    #[test]
    fn finds_each_circle_once() {
        let c = circles(&g(&[(1, 2), (2, 3), (3, 1), (3, 4), (4, 5), (5, 4), (6, 6)]));
        assert_eq!(c, vec![BTreeSet::from([1, 2, 3]), BTreeSet::from([4, 5])]);
    }

    #[test]
    fn a_dag_has_none() {
        assert!(circles(&g(&[(1, 2), (1, 3), (2, 3), (3, 4)])).is_empty());
    }
}
