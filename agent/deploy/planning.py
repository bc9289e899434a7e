"""Deploy planning as every screen runs it (the CLI, the prompt word, the deploy window).

Reading the target and building the planner (memory, environment probe, where plans are
saved) happen here once, so the screens cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import Paths
from termwise.agent.deploy.planner import PlanEvent, Planner
from termwise.agent.deploy.sources import RepoSnapshot, classify_target, fetch_repository
from termwise.agent.llm.base import LlmClient

if TYPE_CHECKING:
    from termwise.agent.base.cancel import CancelToken


def read_target(target: str, config: Config) -> RepoSnapshot:
    """The repository (GitHub, any git URL, a local folder or a bare name) as the planner reads it."""
    from termwise.agent.deploy.sources import github_token

    kind, _ = classify_target(target)
    return fetch_repository(
        target,
        github_api=config.deploy.github_api,
        token=github_token() if kind == "github" else None,
    )


def plan_repository(
    snap: RepoSnapshot,
    shell: str,
    config: Config,
    client: LlmClient,
    paths: Paths,
    *,
    env_info: Mapping[str, object] | None = None,
    refresh_env: bool = False,
    cancel: CancelToken | None = None,
    workdir: str | None = None,
) -> Iterator[PlanEvent]:
    """Stream the plan's steps for `snap` in `shell`, then PlanFinished (saved under deploy_dir).

    `workdir`: the folder the commands will run in; the model is told so."""
    from termwise.agent.suggest.context import memory_lookup
    from termwise.agent.suggest.probe import probe_environment

    info = env_info
    if info is None:
        info = probe_environment(refresh=refresh_env, cache_dir=paths.cache_dir)
    planner = Planner(
        client,
        config,
        memory=memory_lookup(config, paths.memory_dir),
        env_info=dict(info),
        deploy_dir=paths.deploy_dir,
    )
    yield from planner.run(snap, shell, cancel, workdir=workdir)
