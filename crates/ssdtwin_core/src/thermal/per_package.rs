//! A thermal parameter of the NAND packages: one value for every package, or a list with one
//! value per package (`nand_0` first), so a board's packages can sit differently on it
//! (docs/models/thermal.md, "Packages that differ").

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::error::ConfigError;

/// One value for every NAND package, or one per package, `nand_0` first.
#[derive(Clone, Debug, Serialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum PerPackage {
    /// The same value for every package.
    All(f64),
    /// One value per package: as many as `thermal.nand_packages`.
    Each(Vec<f64>),
}

impl PerPackage {
    /// The value of package `index` (call [`PerPackage::check_length`] first).
    pub fn get(&self, index: usize) -> f64 {
        match self {
            PerPackage::All(value) => *value,
            PerPackage::Each(values) => values[index],
        }
    }

    /// The values of `packages` packages.
    pub fn values(&self, packages: usize) -> Vec<f64> {
        (0..packages).map(|index| self.get(index)).collect()
    }

    /// `key` naming package `index`'s value: `key[index]` for a list, `key` for one number.
    pub fn key(&self, key: &str, index: usize) -> String {
        match self {
            PerPackage::All(_) => key.to_string(),
            PerPackage::Each(_) => format!("{key}[{index}]"),
        }
    }

    /// A list must have one value per package.
    pub fn check_length(&self, packages: usize, key: &str) -> Result<(), ConfigError> {
        match self {
            PerPackage::Each(values) if values.len() != packages => Err(ConfigError::new(
                key,
                format!(
                    "{} values for {packages} NAND packages (thermal.nand_packages); allowed: one number for every \
                     package or a list of {packages}",
                    values.len()
                ),
            )),
            _ => Ok(()),
        }
    }
}

impl From<f64> for PerPackage {
    fn from(value: f64) -> Self {
        PerPackage::All(value)
    }
}

impl<'de> Deserialize<'de> for PerPackage {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = PerPackage;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(
                    f,
                    "a number for every NAND package or a list of numbers, one per package"
                )
            }
            fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<PerPackage, E> {
                Ok(PerPackage::All(value))
            }
            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<PerPackage, E> {
                Ok(PerPackage::All(value as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<PerPackage, E> {
                Ok(PerPackage::All(value as f64))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<PerPackage, A::Error> {
                let mut values = Vec::new();
                while let Some(value) = seq.next_element::<f64>()? {
                    values.push(value);
                }
                Ok(PerPackage::Each(values))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Holder {
        value: PerPackage,
    }

    #[test]
    fn reads_a_number_or_a_list_and_checks_the_length() {
        let one: Holder = toml::from_str("value = 8").unwrap();
        assert_eq!(one.value, PerPackage::All(8.0));
        assert_eq!(one.value.values(3), vec![8.0; 3]);
        let each: Holder = toml::from_str("value = [4, 10.5, inf]").unwrap();
        assert_eq!(each.value.get(1), 10.5);
        assert!(each.value.get(2).is_infinite());
        assert_eq!(each.value.check_length(3, "k"), Ok(()));
        let error = each.value.check_length(4, "thermal.x").unwrap_err();
        assert_eq!(error.key, "thermal.x");
        assert!(
            error.message.contains("3 values for 4 NAND packages"),
            "{}",
            error.message
        );
        // The scenario's JSON form (reports, snapshots) reads back to the same value.
        for value in [PerPackage::All(8.0), PerPackage::Each(vec![30.0, 15.0, 10.0, 6.0])] {
            let json = serde_json::to_value(&value).unwrap();
            assert_eq!(serde_json::from_value::<PerPackage>(json).unwrap(), value);
        }
        assert!(toml::from_str::<Holder>("value = \"hot\"").is_err());
        assert!(toml::from_str::<Holder>("value = [1, \"a\"]").is_err());
    }
}
