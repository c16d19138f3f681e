"""Configuration: ``council-harness.yaml`` plus ``LLM_COUNCIL_*`` environment variables.

Precedence: explicit overrides (CLI/pytest options) > environment > YAML file > defaults.
Every field is documented in README.md's config reference. Invalid values raise
:class:`~harness.common.errors.ConfigError` naming the environment variable or ``file:line``.
"""

from __future__ import annotations

import math
import os
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict, SettingsError

from harness.common import vault
from harness.common.ballot_labels import MAX_CANDIDATES as MAX_MEMBERS
from harness.common.errors import ConfigError
from harness.common.families import FAMILIES
from harness.common.rubric_terms import RubricWeights, weights_from_env
from harness.common.scorer_refs import load_declared
from harness.common.yamlio import LocatedYaml, load_yaml

ENV_PREFIX = "LLM_COUNCIL_"
DEFAULT_CONFIG_FILE = "council-harness.yaml"
EMBEDDED_MODELS = ("smollm2-135m", "gemma3-270m")
_EMBEDDED_ALIASES = {"smollm2": "smollm2-135m", "gemma3": "gemma3-270m"}
CacheModeName = Literal["off", "readwrite", "replay"]


class MemberSpec(BaseModel):
    """One council member (or the baseline/chairman/judge model).

    Args:
        id: the member's name in transcripts and reports (unique).
        provider: ``local`` (embedded llama.cpp) or ``openai`` (the configured endpoint).
        model: the model name (an embedded model, or the endpoint's model id).
        temperature, top_p: sampling, passed explicitly on every call.
        max_tokens: generation limit for this member's answers (``None``: the global default).
        system_prompt: an optional persona.
        seed: sampling seed offset added to the global seed.
        base_url, api_key_env: the member's own endpoint and key variable (default: the global ones).
        concurrency, requests_per_minute, tokens_per_minute: limits of the member's own endpoint
            (default: the global ones); members naming the same endpoint share one set of limits,
            the smallest given value of each.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    provider: Literal["local", "openai"] = "local"
    model: str = Field(min_length=1)
    temperature: float = Field(default=0.7, ge=0.0, le=2.0)
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    max_tokens: int | None = Field(default=None, ge=1, le=32768)
    system_prompt: str | None = None
    seed: int = 0
    base_url: str | None = None
    api_key_env: str | None = None
    concurrency: int | None = Field(default=None, ge=1, le=256)
    requests_per_minute: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    tokens_per_minute: float | None = Field(default=None, gt=0, allow_inf_nan=False)

    @property
    def provider_key(self) -> str:
        """Which provider instance serves this member (``openai@URL`` for a member's own endpoint)."""
        if self.provider == "openai" and (self.base_url or self.api_key_env):
            return f"openai@{self.base_url or ''}|{self.api_key_env or ''}"
        return self.provider

    @model_validator(mode="after")
    def _embedded_exists(self) -> MemberSpec:
        if self.provider == "local" and self.model not in EMBEDDED_MODELS:
            raise ValueError(f"embedded model '{self.model}' is unknown; expected one of {list(EMBEDDED_MODELS)}")
        return self


#: the highest price accepted, in dollars per million tokens (a dollar a token); 1e308 would make costs infinite
MAX_PRICE = 1_000_000.0


class ModelPrice(BaseModel):
    """Dollars per million prompt (``input``) and completion (``output``) tokens of one model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0, le=MAX_PRICE, allow_inf_nan=False)
    output: float = Field(ge=0, le=MAX_PRICE, allow_inf_nan=False)


class ArmSettings(BaseModel):
    """The ``arms:`` section: how the baseline arms are run (:mod:`harness.council.arms`).

    Args:
        match_on: the budget self-consistency matches to the council's on each case: ``tokens``
            (prompt + completion), ``completion_tokens`` (what is generated) or ``cost`` (dollars
            from ``pricing:``; every model involved must be priced).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    match_on: Literal["tokens", "completion_tokens", "cost"] = "tokens"


class GateSettings(BaseModel):
    """The ``gate:`` section: what fails the gate (the rule is :mod:`harness.gate.fail_rule`).

    Args:
        fail_on: ``failures`` (every failing or erroring case fails the gate, the default) or
            ``regressions`` (a case that failed or errored in the stored baseline and still does is a
            known failure: reported, it does not change the exit code; regressions still fail).
        min_pass_rate: a pass-rate threshold in [0, 1] per subject (passed over passed + failed +
            errored results): a subject at or above it has its remaining failing cases tolerated; a
            subject below it fails the gate (a ``pass_rate`` reason). ``None``: no threshold.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    fail_on: Literal["failures", "regressions"] = "failures"
    min_pass_rate: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)


def default_members() -> list[MemberSpec]:
    """The embedded default council: SmolLM2 in two sampling personas plus Gemma 3 270M."""
    return [
        MemberSpec(
            id="smollm2-precise",
            model="smollm2-135m",
            temperature=0.2,
            system_prompt="You are a careful assistant. Answer correctly and concisely.",
        ),
        MemberSpec(
            id="smollm2-explainer",
            model="smollm2-135m",
            temperature=0.8,
            seed=1,
            system_prompt="You are a helpful teacher. Give the answer first, then explain briefly.",
        ),
        MemberSpec(id="gemma3", model="gemma3-270m", temperature=0.3, seed=2),
    ]


_yaml_source: ContextVar[LocatedYaml | None] = ContextVar("_yaml_source", default=None)


class _YamlSource(PydanticBaseSettingsSource):
    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        located = _yaml_source.get()
        return dict(located.data) if located is not None else {}


def public_url(url: str, keep_path: bool = True) -> str:
    """``url`` without its user-info, query and fragment (the parts that can carry credentials).

    Args:
        url: the URL as configured.
        keep_path: ``False`` masks the path too (webhook URLs such as Slack's carry their secret there).
    """
    parts = urlsplit(url)
    path = parts.path if keep_path or not parts.path.strip("/") else "/***"
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], path, "", ""))


def _is_finite(v: float, name: str) -> float:
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number")
    return v


class Settings(BaseSettings):
    """All harness settings. Environment names are ``LLM_COUNCIL_`` + the field name upper-cased."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="forbid", frozen=True, case_sensitive=False)

    # the council
    models: Annotated[list[MemberSpec], NoDecode] = Field(default_factory=default_members)
    chairman: str | None = None
    baseline: str | None = None
    judge: str | None = None
    # the OpenAI-compatible endpoint
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    request_timeout: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=10)
    concurrency: int = Field(default=4, ge=1, le=256)
    requests_per_minute: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    tokens_per_minute: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    member_timeout: float = Field(default=180.0, gt=0)
    # embedded models: an engine computing alone takes them all, engines at once share them; None = all cores
    llama_threads: int | None = Field(default=None, ge=1, le=256)
    # generation
    seed: int = 42
    answer_max_tokens: int = Field(default=160, ge=8, le=32768)
    review_max_tokens: int = Field(default=320, ge=16, le=32768)
    # every arm's final answer (the baseline's answer, the chairman's synthesis) gets the same cap, so a
    # tighter limit cannot truncate one arm more than the other; synthesis_max_tokens, when set, overrides
    # it for the synthesis only (kept for old configs)
    final_answer_max_tokens: int = Field(default=200, ge=8, le=32768)
    synthesis_max_tokens: int | None = Field(default=None, ge=8, le=32768)
    # self-consistency:<member> draws this many samples when the council does not run on the same cases
    # (with the council, n matches the council's tokens per case: harness.council.arms)
    self_consistency_samples: int = Field(default=3, ge=1, le=64)
    arms: ArmSettings = Field(default_factory=ArmSettings)
    # council:tie-breaker: the chairman decides when the stage-2 aggregate is tied or CSS is below this
    # (seed 000's 'significant disagreement' band starts below 0.50; harness.council.modes.tie_breaker)
    tie_break_css: float = Field(default=0.5, ge=0, le=1)
    # the best single member is chosen on the cases carrying this tag and reported on the others
    # (harness.gate.best_member); None or no tagged case: each member is reported on its own
    selection_tag: str | None = Field(default="selection", min_length=1)
    # usage ledger (harness.run.ledger): model name -> dollars per million tokens; limits per run invocation
    pricing: dict[str, ModelPrice] = {}
    token_limit: int | None = Field(default=None, ge=1)
    cost_limit: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    # embedded reviewers: ballots from label probabilities, with a short free-text critique
    critique_max_tokens: int = Field(default=24, ge=0, le=1024)
    # scoring
    quality_metrics: bool = True
    quality_tier: Literal["core", "standard", "enterprise"] = "core"
    grounding_threshold: float = Field(default=0.6, ge=0.0, le=1.0)
    rubric_scoring: bool = True
    peer_rubric: bool = False
    safety_gate: bool = True
    weights: RubricWeights = Field(default_factory=RubricWeights)
    # user-defined scorers (harness.scorers.user), run after the built-in ones on every case: each a
    # ``module:function`` or the name of an installed ``council_harness.scorers`` entry point; a dataset
    # may name only these and installed entry points
    scorers: list[str] = []
    # seconds one user scorer call may take before it is a scoring error and abandoned (harness.scorers.user)
    scorer_timeout: float = Field(default=60.0, gt=0, le=86400, allow_inf_nan=False)
    # regression gate
    gated_scores: list[str] | None = None
    tolerances: dict[str, float] = {}
    gate: GateSettings = Field(default_factory=GateSettings)  # what fails the gate (harness.gate.fail_rule)
    repeats: int = Field(default=1, ge=1, le=100)  # noise-aware gate: passes per case (harness.gate.repeats)
    prediction_threshold: float = Field(default=0.15, ge=-1.0, le=10.0)
    # the >15% prediction's primary endpoint: None = `correct` when at least 10 cases have `expected:`,
    # else `rubric_composite` (harness.gate.verdict_plan.default_primary)
    primary_endpoint: str | None = None
    # monitoring
    quality_webhook_url: str | None = None  # several URLs separated by commas
    webhook_secret: SecretStr | None = None
    quality_retention_days: int | None = Field(default=None, ge=1)
    external_validation: bool = False
    model_extraction: bool = False  # the judge extracts the final answer when the rules find none
    # the llm-council subject: constrain the package's stage-2 replies to a JSON ballot (``json_object`` for
    # llama.cpp servers, ``json_schema`` for OpenAI) so that small models can rank; ``off`` leaves them free
    ballot_style: Literal["off", "json_object", "json_schema"] = "off"
    # storage
    cache_mode: CacheModeName = "readwrite"
    cache_path: Path = Path(".council-cache/cache.sqlite")
    reports_dir: Path = Path("reports")
    # cross-session bias records (seed 003, ADR-018); names match the seed's LLM_COUNCIL_* variables
    bias_persistence: bool = False
    bias_store: Path = Field(default_factory=lambda: Path("~/.llm-council/bias_metrics.jsonl").expanduser())
    bias_consent: int = Field(default=1, ge=0, le=4)
    hash_secret: SecretStr | None = None
    bias_window_sessions: int = Field(default=100, ge=1)
    bias_window_days: int = Field(default=30, ge=1)
    min_bias_sessions: int = Field(default=20, ge=1)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, _YamlSource(settings_cls))

    @field_validator("models", mode="before")
    @classmethod
    def _models_from_names(cls, value: Any) -> Any:
        """``LLM_COUNCIL_MODELS=a,b,c``: model names; embedded names run locally."""
        if isinstance(value, str):
            names = [n.strip() for n in value.split(",") if n.strip()]
            if not names:
                raise ValueError("expected a comma-separated list of model names")
            members, seen = [], set()
            for i, name in enumerate(names):
                model = _EMBEDDED_ALIASES.get(name, name)
                member_id = name if name not in seen else f"{name}#{i + 1}"
                seen.add(name)
                provider = "local" if model in EMBEDDED_MODELS else "openai"
                members.append({"id": member_id, "provider": provider, "model": model, "seed": i})
            return members
        return value

    @field_validator("primary_endpoint")
    @classmethod
    def _known_endpoint(cls, v: str | None) -> str | None:
        if v is None:
            return v
        if v not in FAMILIES:
            raise ValueError(f"expected one of {', '.join(FAMILIES)}, got {v!r}")
        return v

    @field_validator("models")
    @classmethod
    def _label_alphabet(cls, value: list[MemberSpec]) -> list[MemberSpec]:
        if len(value) > MAX_MEMBERS:
            raise ValueError(
                f"at most {MAX_MEMBERS} council members can be anonymized for peer review "
                f"(labels Response A to Response Z), got {len(value)}"
            )
        return value

    @field_validator("scorers")
    @classmethod
    def _importable_scorers(cls, v: list[str]) -> list[str]:
        """Each entry must load now (a typo or a broken entry point is a config error, not a scoring
        error on every case)."""
        for i, ref in enumerate(v):
            try:
                load_declared(ref)
            except ValueError as exc:  # ScorerImportError: pydantic names the field and the file:line
                raise ValueError(f"entry {i}: {exc}") from None
        return v

    @field_validator("bias_store")
    @classmethod
    def _expand_user(cls, v: Path) -> Path:
        return v.expanduser()

    @field_validator("request_timeout", "member_timeout")
    @classmethod
    def _finite(cls, v: float) -> float:
        return _is_finite(v, "timeout")

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        ids = [m.id for m in self.models]
        if not ids:
            raise ValueError("models: at least one council member is required")
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"models: member ids must be unique, repeated: {dupes}")
        for role in ("chairman", "baseline", "judge"):
            name = getattr(self, role)
            if name is not None and self.find_member(name) is None and not self._resolvable(name):
                raise ValueError(f"{role}: '{name}' is not a council member id or model name")
        if self.bias_persistence and self.bias_consent == 4 and self.hash_secret is None:
            raise ValueError(
                "bias_consent: level 4 (research) stores a keyed query hash and needs a secret; set "
                "LLM_COUNCIL_HASH_SECRET (or hash_secret in the config), or lower LLM_COUNCIL_BIAS_CONSENT"
            )
        if any(m.provider == "openai" and not m.base_url for m in self.all_specs()) and not self.base_url:
            raise ValueError(
                "base_url: a member uses provider 'openai' but no endpoint is configured (set LLM_COUNCIL_BASE_URL)"
            )
        return self

    @property
    def synthesis_cap(self) -> int:
        """The council's final-answer cap: ``synthesis_max_tokens`` when set, else ``final_answer_max_tokens``."""
        return self.synthesis_max_tokens or self.final_answer_max_tokens

    def _resolvable(self, name: str) -> bool:
        return _EMBEDDED_ALIASES.get(name, name) in EMBEDDED_MODELS or bool(self.base_url)

    def find_member(self, name: str) -> MemberSpec | None:
        return next((m for m in self.models if m.id == name), None) or next(
            (m for m in self.models if m.model == name), None
        )

    def role_spec(self, role: Literal["chairman", "baseline", "judge"]) -> MemberSpec:
        """The spec for a role: a member by id or model name, else a new spec for that model."""
        name = getattr(self, role)
        if role == "baseline" and name is None:
            name = self.chairman
        if role == "judge" and name is None:
            name = self.chairman
        if name is None:
            return self.models[0]
        found = self.find_member(name)
        if found is not None:
            return found
        model = _EMBEDDED_ALIASES.get(name, name)
        provider: Literal["local", "openai"] = "local" if model in EMBEDDED_MODELS else "openai"
        return MemberSpec(id=name, provider=provider, model=model, temperature=0.2)

    def all_specs(self) -> list[MemberSpec]:
        specs = list(self.models)
        for role in ("chairman", "baseline", "judge"):
            name = getattr(self, role)
            if name is not None and self.find_member(name) is None:
                model = _EMBEDDED_ALIASES.get(name, name)
                specs.append(
                    MemberSpec(
                        id=name,
                        model=model,
                        provider="local" if model in EMBEDDED_MODELS else "openai",
                    )
                )
        return specs

    def public_dict(self) -> dict[str, Any]:
        """Settings for manifests and reports (no secrets: only the *name* of the key variable).

        ``hash_secret`` is masked: ``"**********"`` when set, ``None`` when not.
        """
        data = self.model_dump(mode="json", exclude={"hash_secret", "webhook_secret"})
        data["hash_secret"] = "**********" if self.hash_secret is not None else None
        data["webhook_secret"] = "**********" if self.webhook_secret is not None else None
        if self.base_url:  # a key written into the URL (user:key@host, ?api-key=) never reaches a manifest
            data["base_url"] = public_url(self.base_url)
        for member in data.get("models", []):
            if member.get("base_url"):
                member["base_url"] = public_url(member["base_url"])
        if self.quality_webhook_url:
            data["quality_webhook_url"] = ",".join(
                public_url(u.strip(), keep_path=False) for u in self.quality_webhook_url.split(",") if u.strip()
            )
        return data


def _describe_error(err: ErrorDetails, located: LocatedYaml | None) -> str:
    loc = tuple(err.get("loc", ()))
    msg = err.get("msg", "invalid value")
    key = loc[0] if loc else None
    if isinstance(key, str):
        env_name = ENV_PREFIX + key.upper()
        if env_name in os.environ or env_name in vault.sealed_names():
            return f"environment variable {env_name}: {msg}"
        if located is not None and key in located.data:
            where = located.where(loc)
            dotted = ".".join(str(p) for p in loc)
            return f"{where}: '{dotted}': {msg}"
        dotted = ".".join(str(p) for p in loc)
        return f"setting '{dotted}': {msg}"
    return f"configuration: {msg}"


#: The ``pyproject.toml`` table that may hold the settings instead of ``council-harness.yaml``.
PYPROJECT_TABLE = "council-harness"
#: Settings holding paths: relative paths in a configuration found in a parent folder are relative to that folder.
PATH_SETTINGS = ("reports_dir", "cache_path", "bias_store")


def discover_config(start: Path | None = None) -> LocatedYaml | None:
    """The configuration nearest to ``start`` (default: the working directory), looking upward.

    In ``start`` and then each parent folder up to the file-system root, the first of these wins:
    ``council-harness.yaml``, then the ``[tool.council-harness]`` table of ``pyproject.toml`` (a
    ``pyproject.toml`` without that table is skipped). A configuration found in a parent folder has the
    relative paths it names (:data:`PATH_SETTINGS`) made relative to its own folder, so that running from
    a sub-folder writes where running from the project's root would. ``None``: nothing found.

    Raises:
        ConfigError: a ``pyproject.toml`` that is not valid TOML, or whose table is not a table.
    """
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        yaml_file = folder / DEFAULT_CONFIG_FILE
        if yaml_file.is_file():
            located = load_yaml(yaml_file if folder != here or start is not None else Path(DEFAULT_CONFIG_FILE))
            if located.data is None:
                located = located.with_data({})
            if not isinstance(located.data, dict):
                raise ConfigError("expected a mapping of settings at the top level", f"{yaml_file}:1")
            return _anchored(located, folder) if folder != here else located
        table = _pyproject_table(folder / "pyproject.toml")
        if table is not None:
            return _anchored(table, folder) if folder != here else table
    return None


def _pyproject_table(path: Path) -> LocatedYaml | None:
    """``[tool.council-harness]`` of ``path`` with the line of each top-level key; ``None`` without one."""
    import re
    import tomllib

    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", str(path)) from None
    table = data.get("tool", {}).get(PYPROJECT_TABLE) if isinstance(data.get("tool"), dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"expected [tool.{PYPROJECT_TABLE}] to be a table of settings", str(path))
    lines = text.splitlines()
    header = next((i + 1 for i, ln in enumerate(lines) if ln.strip() == f"[tool.{PYPROJECT_TABLE}]"), 1)
    located: dict[tuple[str | int, ...], int] = {(): header}
    for key in table:
        name = re.escape(key)
        pattern = re.compile(rf"^\s*\"?{name}\"?\s*=|^\[tool\.{re.escape(PYPROJECT_TABLE)}\.{name}\]")
        found = next((i + 1 for i, ln in enumerate(lines) if i + 1 >= header and pattern.match(ln)), header)
        located[(key,)] = found
    return LocatedYaml(path, table, located)


def _anchored(located: LocatedYaml, folder: Path) -> LocatedYaml:
    """``located`` with its relative :data:`PATH_SETTINGS` made relative to ``folder``."""
    data = dict(located.data)
    for key in PATH_SETTINGS:
        value = data.get(key)
        if isinstance(value, str) and not Path(value).expanduser().is_absolute() and not value.startswith("~"):
            data[key] = str(folder / value)
    return located.with_data(data)


def load_settings(config_path: Path | str | None = None, **overrides: Any) -> Settings:
    """Load settings from the YAML file (if any), the environment and explicit overrides.

    Args:
        config_path: the YAML file; ``None`` uses ``$COUNCIL_HARNESS_CONFIG``, else the configuration
            :func:`discover_config` finds from the working directory upward (none: defaults and environment).
        overrides: values that win over everything (CLI and pytest options); ``None`` is ignored.
    """
    path = config_path or os.environ.get("COUNCIL_HARNESS_CONFIG")
    located: LocatedYaml | None = None
    if path is None:
        located = discover_config()
    else:
        p = Path(path)
        if not p.exists():
            raise ConfigError("config file not found", str(p))
        located = load_yaml(p)
        if located.data is None:
            located = located.with_data({})
        if not isinstance(located.data, dict):
            raise ConfigError("expected a mapping of settings at the top level", f"{p}:1")
    token = _yaml_source.set(located)
    try:
        clean = {k: v for k, v in overrides.items() if v is not None}
        for name in vault.sealed_names():  # secrets moved out of the environment (harness.common.vault.seal)
            field = name[len(ENV_PREFIX) :].lower() if name.upper().startswith(ENV_PREFIX.upper()) else ""
            if field in Settings.model_fields and field not in clean and name not in os.environ:
                clean[field] = vault.get(name)
        if "weights" not in clean:  # the seed's LLM_COUNCIL_WEIGHT_<DIMENSION> variables
            yaml_weights = located.data.get("weights") if located is not None else None
            env_weights = weights_from_env(os.environ, yaml_weights if isinstance(yaml_weights, dict) else None)
            if env_weights is not None:
                clean["weights"] = env_weights
        return Settings(**clean)
    except ValidationError as exc:
        lines = [_describe_error(e, located) for e in exc.errors()]
        raise ConfigError("invalid configuration: " + "; ".join(lines)) from None
    except SettingsError as exc:  # a structured variable (dict/list/model) whose value is not valid JSON
        field = str(exc).partition('field "')[2].partition('"')[0]
        raise ConfigError(
            'expected a JSON value (for example {"name": 0.1} or ["a", "b"])',
            f"environment variable {ENV_PREFIX}{field.upper()}" if field else "environment",
        ) from None
    finally:
        _yaml_source.reset(token)
