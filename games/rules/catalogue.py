"""F16: the offences the regulations list for each penalty level, offered to
the host as reasons to pick, each with its default penalty (the host may
always choose another penalty).

The original text (shared/regulations/cristalix-mafia-rules.ru.txt) lost its
headings; the levels are read from the order of its lists:

- fouls: lines 215–243 (after «При получении трёх Фолов…», lines 211–213);
- warnings: lines 245–253;
- grey cards: lines 255–263;
- disqualifying fouls (удаление): lines 267–303, the list after the grey card
  section — it opens with the offences the regulations elsewhere call a
  removal (leaving the table, line 157; Night Activity, line 97 → F17);
- ППК: lines 305–317 — role proof by night/out-of-game information, religious
  appeals to prove a role, the farewell-speech excesses, interference after
  leaving, tears «в версии», hints from the audience, beacons.
  READING (F16): where the lists 267–317 split between removal and ППК is not
  marked in the text; the split above puts the offences against the game
  itself (proof of role by out-of-game means, outside interference) under ППК
  and the conduct offences under removal.

``code`` is stable (never renamed); ``text_ru`` is the original wording,
shortened where long; ``rule`` is the RULES.md id.
"""

from __future__ import annotations

from typing import Any

PENALTIES = ("foul", "warning", "grey_card", "disqualify", "ppk", "remove")


def _r(code: str, penalty: str, rule: str, text_ru: str, text_en: str) -> dict[str, Any]:
    return {"code": code, "text_ru": text_ru, "text_en": text_en, "penalty": penalty, "rule": rule}


PENALTY_REASONS: list[dict[str, Any]] = [
    # --- fouls (F2, F13, F14; lines 215–243) -------------------------------------------------------
    _r(
        "speech_out_of_turn",
        "foul",
        "F13",
        "Речь не в свою игровую минуту, в том числе междометия, шёпот и понятная Судье артикуляция",
        "Speaking outside one's own minute, including interjections, whispering and articulation the host can read",
    ),
    _r(
        "excessive_gestures",
        "foul",
        "F16",
        "Использование излишней и агрессивной жестикуляции",
        "Excessive or aggressive gestures",
    ),
    _r("arguing_with_host", "foul", "F16", "Споры с Ведущим Игры", "Arguing with the host"),
    _r(
        "vote_retraction",
        "foul",
        "F18",
        "Удаление голоса при голосовании до подведения итогов (4-й, дисквалифицирующий фол не ставится)",
        "Retracting one's vote before the result (never a 4th or disqualifying foul)",
    ),
    _r("gestures_during_vote", "foul", "F16", "Жестикуляция во время фазы голосования", "Gesturing during the vote"),
    _r(
        "voting_procedure_breach",
        "foul",
        "F16",
        "Нарушение порядка голосования: голоса в разные кандидатуры, недоставление рук в последнюю кандидатуру",
        "Breaking the voting procedure: votes for several candidates, not adding one's hand to the last candidate",
    ),
    _r("flood_spam", "foul", "F16", "Флуд, спам", "Flooding, spam"),
    _r(
        "addressing_host",
        "foul",
        "F16",
        "Обращение к ведущему (кроме вопроса о фолах), спам/флуд в ЛС ведущему",
        "Addressing the host (except to ask about one's fouls), spamming the host's private messages",
    ),
    _r(
        "light_insult",
        "foul",
        "F16",
        "Лёгкое оскорбление игроков, неэтичное поведение по отношению к игрокам/ведущему, самобичевание",
        "Light insults, unethical behaviour towards players or the host, self-flagellation",
    ),
    _r(
        "harmless_oath",
        "foul",
        "F16",
        "Клятвы, не доказывающие роль и не влияющие на ход игры («Клянусь, я сок пил»)",
        'Oaths that neither prove a role nor influence the game ("I swear I drank the juice")',
    ),
    _r(
        "excessive_emotion",
        "foul",
        "F16",
        "Излишняя эмоциональность (крики, вопли)",
        "Excessive emotion (shouting, wailing)",
    ),
    _r(
        "foreign_language",
        "foul",
        "F16",
        "Сокрытие информации путём её озвучивания или написания на иностранном языке",
        "Hiding information by saying or writing it in a foreign language",
    ),
    _r(
        "offensive_emoji",
        "foul",
        "F16",
        "Эмодзи и фотографии для оскорбления или провокации игроков",
        "Emoji or pictures used to insult or provoke players",
    ),
    _r(
        "emotional_pressure",
        "foul",
        "F16",
        "Намеренная демонстрация изменения эмоционального состояния для психологического давления",
        "Deliberately showing a changed emotional state to put pressure on players",
    ),
    _r(
        "ppk_threat",
        "foul",
        "F16",
        "Выражения и жестикуляция с угрозой ППК при выведении игрока",
        "Words or gestures threatening a team loss (PPK) when a player is eliminated",
    ),
    _r(
        "shout_before_night",
        "foul",
        "F12",
        "Выкрик между прощальной речью и фразой «В городе ночь»",
        "A shout between a farewell speech and “Night falls”",
    ),
    # --- warnings (F4; lines 245–253) ----------------------------------------------------------------
    _r(
        "calm_down",
        "warning",
        "F4",
        "Вернуть Игрока в спокойное эмоциональное состояние, взять Игру под контроль",
        "To calm a player down and keep the game under control",
    ),
    _r(
        "ambiguous_context",
        "warning",
        "F4",
        "Возможны двойные толкования; нет уверенности для удаления или ППК",
        "The situation allows two readings; not certain enough for a removal or a team loss (PPK)",
    ),
    _r(
        "singing_poems_greetings",
        "warning",
        "F4",
        "Пение, стихи, приветы и т. д.",
        "Singing, poems, greetings and the like",
    ),
    _r(
        "judging_host",
        "warning",
        "F4",
        "Фразы, описывающие или оценивающие действия Ведущего в этой или предыдущей игре",
        "Describing or judging the host's actions in this or a previous game",
    ),
    # --- grey cards (F15; lines 255–263) -------------------------------------------------------------
    _r(
        "religious_set_phrase",
        "grey_card",
        "F15",
        "Устойчивые выражения с религиозными ценностями («Слава Богу», «О Господи», «Не дай Бог», «Ей Богу»)",
        'Religious set phrases ("Thank God", "Oh Lord", "God forbid")',
    ),
    _r(
        "activity_out_of_phase",
        "grey_card",
        "F15",
        "Активность вне своей игровой фазы (первая ночь до Договорки, тех-пауза, днём в чате мафии)",
        "Activity outside one's phase (first night before the mafia meeting, during a technical pause, in the mafia chat by day)",
    ),
    _r(
        "delaying_speech_three_fouls",
        "grey_card",
        "F15",
        "Задержка речи (при трёх фолах)",
        "Delaying one's speech (with three fouls)",
    ),
    _r(
        "gestures_vote_three_fouls",
        "grey_card",
        "F15",
        "Жестикуляция во время голосования (при трёх фолах)",
        "Gesturing during the vote (with three fouls)",
    ),
    _r(
        "double_or_removed_vote_three_fouls",
        "grey_card",
        "F18",
        "Двойное голосование либо удаление голоса (при трёх фолах)",
        "Voting twice or retracting one's vote (with three fouls)",
    ),
    # --- disqualifying fouls (F3; lines 267–303) ----------------------------------------------------
    _r(
        "leaving_table",
        "disqualify",
        "F3",
        "Покидание стола без указания Ведущего (кроме заключительной минуты)",
        "Leaving the table without the host's permission (except during one's last word)",
    ),
    _r(
        "night_activity_breach",
        "disqualify",
        "F17",
        "Нарушение Правила Ночной Активности во время Ночной фазы",
        "Breaking the Night Activity rule during a Night",
    ),
    _r(
        "night_activity_n0",
        "disqualify",
        "F17",
        "Неоднократное несоблюдение правил Ночной Активности в первую ночь (не «мутит» уши)",
        "Repeatedly ignoring the Night Activity rules in the first night (not muting)",
    ),
    _r(
        "insult",
        "disqualify",
        "F3",
        "Нанесение оскорблений Игрокам, Судьям или зрителям",
        "Insulting players, judges or spectators",
    ),
    _r("tears", "disqualify", "F3", "Слёзы за игровым столом", "Tears at the table"),
    _r(
        "sexual_content",
        "disqualify",
        "F3",
        "Выражения и жестикуляция сексуального характера; действия сексуального характера в адрес кого-либо",
        "Sexual words or gestures, sexual acts described towards someone",
    ),
    _r("obscene_language", "disqualify", "F3", "Использование нецензурной лексики", "Obscene language"),
    _r(
        "health_death_intoxication",
        "disqualify",
        "F3",
        "Высказывания, приписывающие неполноценное здоровье, смерть, опьянение",
        "Attributing ill health, death or intoxication to someone",
    ),
    _r(
        "discrimination",
        "disqualify",
        "F3",
        "Дискриминация по расовому, гендерному, сексуальному признаку, вероисповеданию, национальности",
        "Discrimination by race, gender, sexuality, religion or nationality",
    ),
    _r(
        "relatives_insult",
        "disqualify",
        "F3",
        "Упоминание родственников в оскорбительной форме (в т. ч. завуалированно)",
        "Insulting mention of relatives (veiled included)",
    ),
    _r(
        "mental_ability_death_call",
        "disqualify",
        "F3",
        "Апеллирование к умственным способностям, уровню игры, призыв к смерти",
        "Appeals to mental ability or playing level, calls for death",
    ),
    _r(
        "night_actions_disclosure",
        "disqualify",
        "F3",
        "Озвучивание ночных действий, которые неигровым способом доказывают роль",
        "Revealing night actions that prove one's role by non-game means",
    ),
    _r(
        "non_game_appeal",
        "disqualify",
        "F3",
        "Апеллирование к неигровым этическим/религиозным ценностям для доказательства роли или влияния на голосование",
        "Non-game ethical or religious appeals to prove a role or sway the vote",
    ),
    _r(
        "soundpad",
        "disqualify",
        "F3",
        "Soundpad и аналоги, программы изменения голоса",
        "Soundpad or voice-changing software",
    ),
    _r(
        "politics",
        "disqualify",
        "F3",
        "Политические темы, провокации на политической основе",
        "Political topics or provocation",
    ),
    _r(
        "correspondence_disclosure",
        "disqualify",
        "F3",
        "Озвучивание ложной или настоящей переписки с другими игроками",
        "Quoting real or fake messages with other players",
    ),
    _r(
        "distracting_activity",
        "disqualify",
        "F3",
        "Отвлекающая деятельность (другие игры, TikTok, переписка) и упоминание этого на речи",
        "Distracting activity (other games, TikTok, chatting) or mentioning it in a speech",
    ),
    _r(
        "oath_or_bet",
        "disqualify",
        "F3",
        "Клятва и/или попытка пари в любой форме",
        "An oath or an attempted bet in any form",
    ),
    _r("blackmail_threats_bribery", "disqualify", "F3", "Шантаж, угрозы и/или подкуп", "Blackmail, threats or bribery"),
    # --- ППК (W5; lines 305–317) --------------------------------------------------------------------
    _r(
        "role_proof_out_of_game",
        "ppk",
        "W5",
        "Доказывание роли уникальной «ночной» и внеигровой информацией",
        "Proving one's role with unique night or out-of-game information",
    ),
    _r(
        "religious_role_proof",
        "ppk",
        "W5",
        "Апеллирование к религиозным ценностям, сложенные ладони для доказательства роли («Клянусь, я красный»)",
        'Religious appeals or folded hands to prove a role ("I swear I am red")',
    ),
    _r(
        "farewell_excess",
        "ppk",
        "W5",
        "Чрезмерный эмоционал, оскорбления на уходящей речи после выведения голосованием",
        "Excessive emotion or insults in the farewell speech after being voted out",
    ),
    _r(
        "interference_after_leaving",
        "ppk",
        "W5",
        "Вмешательство в Игру, оскорбления после покидания Игровой локации",
        "Interfering with the game or insulting after leaving the game location",
    ),
    _r(
        "tears_in_version",
        "ppk",
        "W5",
        "Слёзы за соревновательным столом (если игрок находится в «версии»)",
        "Tears at the table while the player is under suspicion (“in the version”)",
    ),
    _r("audience_hints", "ppk", "W5", "Подсказки из зрительного зала", "Hints from the audience"),
    _r(
        "beacons",
        "ppk",
        "W5",
        "Маяки: заранее оговорённые знаки для вскрытия роли",
        "Beacons: pre-arranged signs to reveal a role",
    ),
    # --- removals without replacement (S3, X4) -------------------------------------------------------
    _r(
        "not_ready",
        "remove",
        "S3",
        "Неготовность к участию (оборудование, подключение)",
        "Not ready to play (equipment, connection)",
    ),
    _r(
        "cannot_continue",
        "remove",
        "X4",
        "Игрок не может продолжить Игру по какой-либо причине",
        "The player cannot continue for any reason",
    ),
]

_BY_CODE = {r["code"]: r for r in PENALTY_REASONS}
assert len(_BY_CODE) == len(PENALTY_REASONS), "duplicate reason codes"


def reasons_for(penalty: str) -> list[dict[str, Any]]:
    """The reasons whose default penalty is ``penalty`` (one of PENALTIES)."""
    return [r for r in PENALTY_REASONS if r["penalty"] == penalty]


def reason(code: str) -> dict[str, Any] | None:
    return _BY_CODE.get(code)


_BY_TEXT_RU = {r["text_ru"]: r for r in PENALTY_REASONS}


def reason_text(reason: str | None, code: str | None = None, lang: str = "ru") -> str:
    """A penalty's reason as the reader sees it (F16).

    A catalogue reason is shown in the reader's language: found by its
    ``code`` (stored with the action as ``reason_code``), or, where only the
    stored wording is at hand (the state's penalty records, logs written
    before the code was stored), by that Russian wording or a bare code.
    A reason the host typed in his own words stays as typed.
    """
    entry = _BY_CODE.get(code) if code else None
    if entry is None and reason:
        entry = _BY_TEXT_RU.get(reason.strip()) or _BY_CODE.get(reason.strip())
    if entry is None:
        return reason or ""
    return str(entry["text_en"] if lang.lower().startswith("en") else entry["text_ru"])


# F18 (RULES F18 INTERP): the three offences the grey-card list qualifies
# «при трёх фолах» — retracting one's vote, delaying one's speech, gesturing
# during the vote. Each earns a foul, but never a 4th or a disqualifying one:
# a player with 3 fouls gets the grey card instead. Maps every code of these
# offences (the foul-level code and its grey-card twin) to the grey card to give.
F18_GREY_CARD: dict[str, str] = {
    "vote_retraction": "double_or_removed_vote_three_fouls",
    "double_or_removed_vote_three_fouls": "double_or_removed_vote_three_fouls",
    "gestures_during_vote": "gestures_vote_three_fouls",
    "gestures_vote_three_fouls": "gestures_vote_three_fouls",
    "delaying_speech_three_fouls": "delaying_speech_three_fouls",
}


def catalogue_code(reason: str | None, code: str | None = None) -> str | None:
    """The F16 code of a penalty's reason: its ``reason_code``, else a reason
    that is exactly a code or a catalogue wording (logs written before the
    code was stored). A reason in the host's own words has none."""
    if code and code in _BY_CODE:
        return code
    if reason:
        entry = _BY_TEXT_RU.get(reason.strip()) or _BY_CODE.get(reason.strip())
        if entry is not None:
            return str(entry["code"])
    return None
