//! The attributes of an object (or the elements of a map, or the attribute types of an
//! object type) by name: a list kept sorted by name, with a map's reading and writing.
//!
//! A `BTreeMap` allocates a node with room for eleven entries for every object, however
//! small: a variables file of small objects took fifty times its size. Iterating gives the
//! names in byte order, as the map did, so every output stays the same.

/// Entries sorted by name, each name once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attrs<V> {
    entries: Vec<(String, V)>,
}

impl<V> Default for Attrs<V> {
    fn default() -> Self {
        Attrs { entries: Vec::new() }
    }
}

impl<V> Attrs<V> {
    pub fn new() -> Self {
        Attrs::default()
    }

    /// Room for `n` entries: an object converted attribute by attribute, not the room for
    /// four that the first insertion into an empty list makes.
    pub fn with_capacity(n: usize) -> Self {
        Attrs { entries: Vec::with_capacity(n) }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn find(&self, name: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.as_str().cmp(name))
    }

    pub fn get(&self, name: &str) -> Option<&V> {
        self.find(name).ok().map(|i| &self.entries[i].1)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.find(name).is_ok()
    }

    /// Sets `name` (replacing and returning the value it had, as a map does). Names given
    /// in order are appended without a search.
    pub fn insert(&mut self, name: String, value: V) -> Option<V> {
        if self.entries.last().is_none_or(|(k, _)| *k < name) {
            self.entries.push((name, value));
            return None;
        }
        match self.find(&name) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (name, value));
                None
            }
        }
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&String, &V)> + ExactSizeIterator {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }
}

/// As a map is collected: in name order, and of a name given twice the last value.
impl<V> FromIterator<(String, V)> for Attrs<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> Self {
        let mut entries: Vec<(String, V)> = iter.into_iter().collect();
        if !entries.is_sorted_by(|a, b| a.0 < b.0) {
            // Stable, so that equal names keep their order and the last one can win.
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            let mut kept: Vec<(String, V)> = Vec::with_capacity(entries.len());
            for e in entries {
                match kept.last_mut() {
                    Some(last) if last.0 == e.0 => *last = e,
                    _ => kept.push(e),
                }
            }
            entries = kept;
        }
        // A list collected in place keeps the room of what it was collected from (a
        // parser's list of properties, with room for four and more): every object of a
        // file would keep it.
        entries.shrink_to_fit();
        Attrs { entries }
    }
}

impl<V, const N: usize> From<[(String, V); N]> for Attrs<V> {
    fn from(entries: [(String, V); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<V> IntoIterator for Attrs<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a, V> IntoIterator for &'a Attrs<V> {
    type Item = (&'a String, &'a V);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, V)>,
        fn(&'a (String, V)) -> (&'a String, &'a V),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn reads_and_writes_as_a_map_does() {
        let pairs = [("b", 1), ("a", 2), ("c", 3), ("a", 4), ("", 5), ("é", 6), ("B", 7)];
        let owned = || pairs.iter().map(|(k, v)| (k.to_string(), *v));
        let map: BTreeMap<String, i32> = owned().collect();
        let attrs: Attrs<i32> = owned().collect();
        assert!(attrs.iter().eq(map.iter()));
        let mut inserted = Attrs::new();
        let mut map2 = BTreeMap::new();
        for (k, v) in owned() {
            assert_eq!(inserted.insert(k.clone(), v), map2.insert(k, v));
        }
        assert!(inserted.iter().eq(map2.iter()));
        assert_eq!(inserted, attrs);
        for k in ["a", "b", "z", "", "é"] {
            assert_eq!(attrs.get(k), map.get(k));
            assert_eq!(attrs.contains_key(k), map.contains_key(k));
        }
        assert_eq!(attrs.len(), map.len());
        assert!(attrs.keys().eq(map.keys()));
        assert!(attrs.values().eq(map.values()));
        assert!(attrs.into_iter().eq(map.into_iter()));
    }
}
