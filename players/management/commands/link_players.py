from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from players import decisions
from players.names import PlayerError
from players.services import link_existing


class Command(BaseCommand):
    help = (
        "Link game seats and tournament participants without a player by exact nickname match "
        "(aliases, case, ё/е, look-alike letters); list the ones to decide. "
        "Decide one: --link SEAT PLAYER (SEAT: 49, seat#49 or participant#12; PLAYER: an id or a nickname) "
        "or --create SEAT (a new player of its nickname)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--create",
            nargs="?",
            const="",
            default=None,
            metavar="SEAT",
            help="With SEAT: create a player for this seat or participant. Alone: create a player for every nickname that matches nobody (and is not close to anybody).",
        )
        parser.add_argument(
            "--link",
            nargs=2,
            metavar=("SEAT", "PLAYER"),
            help="Link this seat or participant to this player (id or nickname).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["link"] or options["create"]:
            self._decide(options)
            return
        report = link_existing(create_missing=options["create"] is not None)
        self.stdout.write(f"linked: {report.linked}; new players: {report.created}; to decide: {len(report.ambiguous)}")
        for where, nickname, candidates in report.ambiguous:
            self.stdout.write(f"  {where} «{nickname}»: {', '.join(candidates)}")
        if report.ambiguous:
            self.stdout.write("  decide with: link_players --link seat#N PLAYER, or --create seat#N")

    def _decide(self, options: dict[str, Any]) -> None:
        try:
            if options["link"]:
                target, who = options["link"]
                kind, pk = decisions.parse_target(target)
                player = decisions.find_player(who)
                if player is None:
                    raise CommandError(f"no player «{who}» (give his id or his exact nickname)")
                decision = decisions.decide(kind=kind, pk=pk, player=player)
            else:
                kind, pk = decisions.parse_target(options["create"])
                decision = decisions.decide(kind=kind, pk=pk, create=True)
        except PlayerError as exc:
            raise CommandError(exc.message) from exc
        made = " (new player)" if decision.created_player else ""
        self.stdout.write(
            f"{kind} #{pk} «{decision.nickname}» → {decision.player.nickname} (#{decision.player_id}){made}"
        )
