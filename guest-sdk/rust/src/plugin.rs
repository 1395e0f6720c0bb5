//! What a connector says about itself: [`PluginInfo`], [`ConfigKey`], and
//! validation results ([`ConfigProblem`]).

/// The type of a config value, used by the host for validation and
/// documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigType {
    /// Any UTF-8 text.
    String,
    /// A 32-bit signed integer.
    Int,
    /// A 64-bit signed integer.
    Long,
    /// A 64-bit float.
    Double,
    /// `true` or `false`.
    Boolean,
    /// A comma-separated list of values.
    List,
    /// Secret text; the host never logs or returns it.
    Password,
}

/// How much an operator should care about a config key (Kafka Connect's
/// `ConfigDef.Importance`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Importance {
    /// Must be understood to run the connector.
    High,
    /// Commonly tuned.
    #[default]
    Medium,
    /// Rarely changed.
    Low,
}

/// One key of a connector's configuration definition.
///
/// ```
/// use copycat_sdk::{ConfigKey, Importance};
///
/// let key = ConfigKey::int("batch.size")
///     .default_value("1000")
///     .doc("Records per poll, at most.")
///     .importance(Importance::Low);
/// assert!(!key.required);
/// let topic = ConfigKey::string("topic").required().doc("Kafka topic to write to.");
/// assert!(topic.required);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigKey {
    /// The key, e.g. `topic` or `batch.size`.
    pub name: String,
    /// The value's type.
    pub ty: ConfigType,
    /// The value used when the key is absent.
    pub default_value: Option<String>,
    /// Whether the operator must set this key.
    pub required: bool,
    /// Documentation shown to operators.
    pub doc: String,
    /// How much the key matters.
    pub importance: Importance,
}

impl ConfigKey {
    /// An optional key of type `ty`, without default, of medium importance.
    pub fn new(name: impl Into<String>, ty: ConfigType) -> Self {
        Self {
            name: name.into(),
            ty,
            default_value: None,
            required: false,
            doc: String::new(),
            importance: Importance::Medium,
        }
    }

    /// A [`ConfigType::String`] key.
    pub fn string(name: impl Into<String>) -> Self {
        Self::new(name, ConfigType::String)
    }

    /// A [`ConfigType::Int`] key.
    pub fn int(name: impl Into<String>) -> Self {
        Self::new(name, ConfigType::Int)
    }

    /// A [`ConfigType::Long`] key.
    pub fn long(name: impl Into<String>) -> Self {
        Self::new(name, ConfigType::Long)
    }

    /// A [`ConfigType::Double`] key.
    pub fn double(name: impl Into<String>) -> Self {
        Self::new(name, ConfigType::Double)
    }

    /// A [`ConfigType::Boolean`] key.
    pub fn boolean(name: impl Into<String>) -> Self {
        Self::new(name, ConfigType::Boolean)
    }

    /// A [`ConfigType::List`] key.
    pub fn list(name: impl Into<String>) -> Self {
        Self::new(name, ConfigType::List)
    }

    /// A [`ConfigType::Password`] key.
    pub fn password(name: impl Into<String>) -> Self {
        Self::new(name, ConfigType::Password)
    }

    /// Mark the key required (the operator must set it; the host rejects
    /// configs without it). Required keys are also of high importance.
    #[must_use]
    pub fn required(mut self) -> Self {
        self.required = true;
        self.importance = Importance::High;
        self
    }

    /// The value used when the key is absent (documentation for operators;
    /// read it with [`Config::get_parsed`](crate::Config::get_parsed) and the
    /// same default).
    #[must_use]
    pub fn default_value(mut self, value: impl Into<String>) -> Self {
        self.default_value = Some(value.into());
        self
    }

    /// Documentation shown to operators.
    #[must_use]
    pub fn doc(mut self, doc: impl Into<String>) -> Self {
        self.doc = doc.into();
        self
    }

    /// How much the key matters.
    #[must_use]
    pub fn importance(mut self, importance: Importance) -> Self {
        self.importance = importance;
        self
    }
}

/// What a connector plugin says about itself, returned by
/// [`Connector::describe`](crate::Connector::describe).
///
/// The plugin's kind (source or sink) is not set here: the export macro
/// fills it in from the world it exports, so it always matches.
///
/// ```
/// use copycat_sdk::{ConfigKey, PluginInfo};
///
/// let info = PluginInfo::new("datagen", env!("CARGO_PKG_VERSION"))
///     .description("Generates sequence records")
///     .config(ConfigKey::string("topic").required().doc("Kafka topic"));
/// assert_eq!(info.config_def.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginInfo {
    /// A short, stable name, e.g. `datagen` or `file-source`.
    pub name: String,
    /// The plugin's own version (semver recommended).
    pub version: String,
    /// One line for operators: what this connector moves, from where to where.
    pub description: String,
    /// Every config key the connector understands. The host checks required
    /// keys and value types before `validate` is called.
    pub config_def: Vec<ConfigKey>,
}

impl PluginInfo {
    /// A plugin named `name` at `version` (e.g. `env!("CARGO_PKG_VERSION")`),
    /// with no description or config keys yet.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            description: String::new(),
            config_def: Vec::new(),
        }
    }

    /// One line for operators.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Add a config key to the definition.
    #[must_use]
    pub fn config(mut self, key: ConfigKey) -> Self {
        self.config_def.push(key);
        self
    }
}

/// One problem found by [`Connector::validate`](crate::Connector::validate),
/// tied to the config key at fault.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ConfigProblem {
    /// The key at fault (or the empty string for the config as a whole).
    pub key: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl ConfigProblem {
    /// A problem with `key`.
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            message: message.into(),
        }
    }
}
