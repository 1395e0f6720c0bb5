"""uppercase-transform: a transform component that upper-cases text.

A string value is upper-cased whole, a bytes value (a connector's raw
bytes) has its ASCII letters upper-cased; in a struct or map value, the
string fields named in ``fields`` are (all of them when ``fields`` is
empty). Anything else passes unchanged, and the schema never changes.
(examples/SPEC.md defines this behaviour for every language.)
"""

from copycat_sdk import ConfigError, ConfigKey, Problem, Struct
from copycat_sdk.transform import Transform, TransformInfo, export_transform

FIELDS = ConfigKey.list("fields", default="", doc="Fields to upper-case (empty: every string field)")


def empty_names(config):
    """One problem per empty name in ``fields`` (``fields=a,,b``)."""
    raw = config.get("fields") or ""
    if not raw.strip():
        return []
    return [Problem("fields", f"an empty field name in {raw!r}") for name in raw.split(",") if not name.strip()]


class Uppercase(Transform):
    fields = ()

    def describe(self):
        return TransformInfo(
            name="uppercase-transform",
            version="0.1.0",
            description="Upper-cases string values, or the named string fields of a struct or map value",
            config_def=[FIELDS],
        )

    def validate(self, config):
        return empty_names(config)

    def configure(self, config):
        problems = empty_names(config)
        if problems:
            raise ConfigError(f"config 'fields': {problems[0].message}", "fields")
        self.fields = frozenset(FIELDS.parse(config))

    def wanted(self, name):
        return not self.fields or name in self.fields

    def apply(self, record):
        value = record.value
        if isinstance(value, str):
            record.value = value.upper()
        elif isinstance(value, bytes):
            record.value = value.upper()  # ASCII letters only
        elif isinstance(value, Struct):
            for field in value.schema.fields:
                v = value[field.name]
                if isinstance(v, str) and self.wanted(field.name):
                    value[field.name] = v.upper()
        elif isinstance(value, dict):
            for k, v in value.items():
                if isinstance(k, str) and isinstance(v, str) and self.wanted(k):
                    value[k] = v.upper()
        return record


Transformer = export_transform(Uppercase)
