"""Settings resolution: precedence, interpolation, unknown keys, config-file discovery."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_eval_pytest.config.expansion import interpolate
from rag_eval_pytest.config.files import ConfigFile, find_config_file
from rag_eval_pytest.config.resolution import Override, resolve_settings
from rag_eval_pytest.errors import ConfigError


def test_defaults() -> None:
    settings = resolve_settings(ConfigFile(None, {}), [], env={}).settings
    assert settings.output.directory == "results"
    assert settings.exit_codes.critical == 2 and settings.exit_codes.fatal == 3
    assert settings.normalised_weights() == {
        "faithfulness": 0.4,
        "answer_relevance": 0.2,
        "context_precision": 0.2,
        "context_recall": 0.2,
    }


def test_cli_overrides_config_file(tmp_path: Path) -> None:
    file = ConfigFile(
        tmp_path / "eval-config.yaml", {"thresholds": {"composite": 0.8, "faithfulness": 0.85}}
    )
    settings = resolve_settings(
        file, [Override("thresholds.composite", 0.9, "--rag-fail-under")], env={}
    ).settings
    assert settings.thresholds == {"composite": 0.9, "faithfulness": 0.85}


def test_relative_paths_in_a_config_file_are_relative_to_the_file(tmp_path: Path) -> None:
    file = ConfigFile(
        tmp_path / "sub" / "eval-config.yaml",
        {"output": {"directory": "out"}, "target": "app/rag.py:answer"},
    )
    settings = resolve_settings(file, [], env={}).settings
    assert settings.output.directory == str(tmp_path / "sub" / "out")
    assert settings.target == f"{tmp_path / 'sub' / 'app/rag.py'}:answer"


def test_unknown_keys_are_named(tmp_path: Path) -> None:
    file = ConfigFile(tmp_path / "eval-config.yaml", {"output": {"directry": "x"}})
    with pytest.raises(ConfigError) as info:
        resolve_settings(file, [], env={})
    assert "unknown key 'output.directry'" in str(info.value)
    assert "allowed: directory, formats, history" in str(info.value)
    assert str(tmp_path / "eval-config.yaml") in str(info.value)


def test_unknown_metric_in_weights_is_named(tmp_path: Path) -> None:
    file = ConfigFile(tmp_path / "c.yaml", {"weights": {"faithfullness": 40}})
    with pytest.raises(ConfigError, match="unknown metric 'faithfullness'"):
        resolve_settings(file, [], env={})


def test_wrong_type_names_key_and_value(tmp_path: Path) -> None:
    file = ConfigFile(tmp_path / "c.yaml", {"thresholds": {"composite": 1.5}})
    with pytest.raises(ConfigError) as info:
        resolve_settings(file, [], env={})
    assert "key 'thresholds.composite'" in str(info.value) and "1.5" in str(info.value)


def test_bad_override_names_its_source(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="ini option rag_slow_threshold"):
        resolve_settings(
            ConfigFile(None, {}),
            [Override("slow_threshold", "fast", "ini option rag_slow_threshold")],
            env={},
        )


def test_env_interpolation_defaults_escapes_and_secrets() -> None:
    secrets: set[str] = set()
    data = interpolate(
        {
            "a": "Bearer ${RAG_API_TOKEN}",
            "b": ["${MISSING:-fallback}", "$${LITERAL}"],
            "c": "${PLAIN}",
        },
        {"RAG_API_TOKEN": "s3cret-token", "PLAIN": "visible"},
        "c.yaml",
        secrets,
    )
    assert data == {"a": "Bearer s3cret-token", "b": ["fallback", "${LITERAL}"], "c": "visible"}
    assert secrets == {"s3cret-token"}


def test_missing_env_variable_is_named() -> None:
    with pytest.raises(ConfigError) as info:
        interpolate({"http": {"headers": {"X": "${NOPE}"}}}, {}, "c.yaml", set())
    assert "key 'http.headers.X': environment variable NOPE is not set" in str(info.value)


def test_discovery_order(tmp_path: Path) -> None:
    assert find_config_file(tmp_path, None).path is None
    (tmp_path / "pyproject.toml").write_text("[tool.rag_eval]\nslow_threshold = 2\n")
    assert find_config_file(tmp_path, None).data == {"slow_threshold": 2}
    (tmp_path / "eval-config.yaml").write_text("slow_threshold: 3\n")
    assert find_config_file(tmp_path, None).data == {"slow_threshold": 3}
    explicit = tmp_path / "other.yml"
    explicit.write_text("slow_threshold: 4\n")
    assert find_config_file(tmp_path, explicit).data == {"slow_threshold": 4}
    with pytest.raises(ConfigError, match="not found"):
        find_config_file(tmp_path, tmp_path / "absent.yaml")


def test_config_file_must_be_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "eval-config.yaml"
    path.write_text("- a\n- b\n")
    with pytest.raises(ConfigError, match="expected a mapping of keys, found list"):
        find_config_file(tmp_path, None)


@pytest.mark.parametrize(
    ("judge", "cache"),
    [
        ({"no_cache": True}, False),
        ({"no_cache": "true", "cache": True}, False),  # it overrode cache, as it did
        ({"no_cache": False}, True),
        ({"no_cache": False, "cache": False}, False),
    ],
)
def test_the_deprecated_no_cache_key_becomes_cache_with_a_notice(
    tmp_path: Path, judge: dict[str, object], cache: bool
) -> None:
    path = tmp_path / "eval-config.yaml"
    resolved = resolve_settings(ConfigFile(path, {"judge": judge}), [], env={})
    assert resolved.settings.judge.cache is cache
    [notice] = resolved.deprecations
    assert "'judge.no_cache' is deprecated: use 'judge.cache'" in notice and str(path) in notice


def test_a_bad_no_cache_value_is_named(tmp_path: Path) -> None:
    file = ConfigFile(tmp_path / "c.yaml", {"judge": {"no_cache": "sometimes"}})
    with pytest.raises(ConfigError) as info:
        resolve_settings(file, [], env={})
    assert "key 'judge.no_cache'" in str(info.value) and "'sometimes'" in str(info.value)


def test_cache_is_the_one_key_and_no_notice_without_no_cache(tmp_path: Path) -> None:
    file = ConfigFile(tmp_path / "c.yaml", {"judge": {"cache": False}})
    resolved = resolve_settings(file, [], env={})
    assert resolved.settings.judge.cache is False and resolved.deprecations == []
    assert "no_cache" not in resolved.settings.judge.model_dump()


def test_an_override_and_the_config_file_get_the_same_words(tmp_path: Path) -> None:
    file = ConfigFile(tmp_path / "eval-config.yaml", {"thresholds": {"composite": 2}})
    with pytest.raises(ConfigError) as from_file:
        resolve_settings(file, [], env={})
    with pytest.raises(ConfigError) as from_flag:
        resolve_settings(
            ConfigFile(None, {}),
            [Override("thresholds.composite", "2", "--rag-fail-under")],
            env={},
        )
    assert str(from_file.value) == (
        f"Invalid configuration {tmp_path / 'eval-config.yaml'}: key 'thresholds.composite': "
        "2 is not between 0 and 1"
    )
    assert str(from_flag.value) == "--rag-fail-under: 2 is not between 0 and 1"


def test_a_bad_item_of_a_list_override_names_the_override() -> None:
    with pytest.raises(ConfigError) as info:
        resolve_settings(
            ConfigFile(None, {}),
            [Override("tags", ["billing", " "], "rag_tags in pytest.ini")],
            env={},
        )
    assert str(info.value) == "rag_tags in pytest.ini: a tag must not be blank"


def test_a_value_from_a_variable_names_the_reference(tmp_path: Path) -> None:
    file = ConfigFile(tmp_path / "c.yaml", {"judge": {"passes": "${PASSES:-many}"}})
    with pytest.raises(ConfigError) as info:
        resolve_settings(file, [], env={})
    assert str(info.value).endswith(
        "key 'judge.passes' ('${PASSES:-many}' from the environment): 'many' is not a whole number"
    )
