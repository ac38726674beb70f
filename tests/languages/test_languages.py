"""The language layer: which language a text is read in, its claims, tool words and replies."""

from __future__ import annotations

import json

import pytest

from auditor.languages import LEXICONS
from auditor.languages.claims import claims
from auditor.languages.detect import languages_of
from auditor.reading.actions import of_family, translated, words
from auditor.replay.approvals.replies import asks_to_confirm, verdict, waives


@pytest.mark.parametrize(
    ("text", "languages"),
    [
        ("Your reservation has been cancelled and the refund is on its way.", ("en",)),
        ("Hola, necesito cancelar mi reserva, por favor. ¿Me puede ayudar con esto?", ("es",)),
        (
            "Olá, preciso cancelar a minha reserva, por favor. Você pode me ajudar? Obrigado.",
            ("pt",),
        ),
        ("Bonjour, je voudrais annuler ma réservation pour demain, merci beaucoup.", ("fr",)),
        ("Bitte stornieren Sie meine Reservierung, ich kann nicht fliegen. Danke sehr!", ("de",)),
        (
            "Ciao, vorrei annullare la mia prenotazione per domani, per favore. Grazie.",
            ("en", "it"),
        ),
        ("请帮我取消明天的预订，谢谢。我的预订号是ABC123，需要退款到原来的信用卡。", ()),
        ("el = document.getElementById('x'); for (lo = 0; lo < hi; lo++) { su(el); }", ("en",)),
        ("ok", ("en",)),
        ("Envoyez le rapport à ana@example.com, s'il vous plaît. Merci.", ("en", "fr")),
        ("Translate it all to French. Voici la traduction en français du fichier.", ("en",)),
    ],
)
def test_the_languages_a_text_is_read_in(text, languages):
    assert languages_of(text) == languages


@pytest.mark.parametrize(
    ("code", "text", "verb", "clause"),
    [
        (
            "es",
            "¡Listo! El cambio de plan se ha realizado exitosamente.",
            "change",
            "El cambio de plan se ha realizado exitosamente.",
        ),
        (
            "es",
            "Su reserva ABC123 ha sido cancelada.",
            "cancel",
            "Su reserva ABC123 ha sido cancelada.",
        ),
        (
            "es",
            "He enviado el correo a ana@example.com.",
            "send",
            "He enviado el correo a ana@example.com.",
        ),
        ("es", "Cancelé su cita de mañana.", "cancel", "Cancelé su cita de mañana."),
        (
            "pt",
            "Sua reserva foi cancelada com sucesso.",
            "cancel",
            "Sua reserva foi cancelada com sucesso.",
        ),
        (
            "pt",
            "Enviei o e-mail para o seu endereço.",
            "send",
            "Enviei o e-mail para o seu endereço.",
        ),
        (
            "fr",
            "Votre réservation a bien été annulée.",
            "cancel",
            "Votre réservation a bien été annulée.",
        ),
        ("fr", "J'ai envoyé le courriel.", "send", "J'ai envoyé le courriel."),
        (
            "de",
            "Ihre Buchung wurde erfolgreich storniert.",
            "cancel",
            "Ihre Buchung wurde erfolgreich storniert.",
        ),
        (
            "de",
            "Ich habe die E-Mail an Anna gesendet.",
            "send",
            "Ich habe die E-Mail an Anna gesendet.",
        ),
        (
            "it",
            "La prenotazione è stata annullata.",
            "cancel",
            "La prenotazione è stata annullata.",
        ),
        ("it", "Ho inviato la email di conferma.", "send", "Ho inviato la email di conferma."),
        ("it", "Ho appena inviato la email.", "send", "Ho appena inviato la email."),
        (
            "es",
            "Su cita ha sido reprogramada para el 27 de julio.",
            "schedule",
            "Su cita ha sido reprogramada para el 27 de julio.",
        ),
        (
            "es",
            "He procedido a cancelar su reserva.",
            "cancel",
            "He procedido a cancelar su reserva.",
        ),
        ("es", "Su pedido ha quedado registrado.", "create", "Su pedido ha quedado registrado."),
        ("pt", "Acabei de enviar o e-mail.", "send", "Acabei de enviar o e-mail."),
        ("fr", "Je viens d'annuler la commande.", "cancel", "Je viens d'annuler la commande."),
        (
            "de",
            "Die Stornierung wurde durchgeführt.",
            "cancel",
            "Die Stornierung wurde durchgeführt.",
        ),
    ],
)
def test_a_completion_claim_is_read_with_its_english_verb(code, text, verb, clause):
    found = list(claims(text, LEXICONS[code]))
    assert [(c.verb, c.clause) for c in found] == [(verb, clause)]


@pytest.mark.parametrize(
    ("code", "text"),
    [
        ("es", "Si desea, puedo cancelar la reserva."),  # an offer
        ("es", "La reserva se cancelará mañana."),  # the future
        ("es", "¿Se ha cancelado la reserva?"),  # a question
        ("es", "Usted ha cancelado la reserva desde la aplicación."),  # the user's own action
        ("es", "Su reserva está cancelada desde el lunes."),  # a state
        ("es", "La reserva ya ha sido cancelada."),  # an earlier state
        ("es", "La reserva ha sido cancelada por la aerolínea."),  # someone else did it
        ("es", "Todavía no se ha cancelado la reserva."),  # negated
        ("pt", "Se quiser, posso cancelar a reserva."),
        ("pt", "Você cancelou a reserva pelo aplicativo."),
        ("fr", "Si vous voulez, je peux annuler la réservation."),
        ("fr", "La réservation n'a pas été annulée."),
        ("de", "Wenn Sie möchten, kann ich die Buchung stornieren."),
        ("de", "Sie haben die Buchung in der App storniert."),
        ("de", "Die Buchung wurde von der Airline storniert."),
        ("it", "Se vuole, posso annullare la prenotazione."),
        ("it", "La prenotazione non è stata annullata."),
        ("es", "Se ha realizado su solicitud."),  # done, of no action
        ("es", "Acabo de revisar su cuenta."),  # a lookup
        ("es", "No he podido cancelar la reserva."),
        ("it", "Appena ho inviato la email, la riceverà."),  # "as soon as"
        ("pt", "Sua reserva foi criada em 10 de maio de 2024."),  # a past event, looked up
        ("es", "Su pedido ha sido enviado el 12 de marzo."),
        ("de", "Die Buchung wurde am 3. März storniert."),
        ("fr", "La commande a été annulée il y a trois jours."),
        ("it", "La prenotazione è stata annullata ieri."),
    ],
)
def test_what_is_not_a_completion_claim(code, text):
    assert list(claims(text, LEXICONS[code])) == []


def test_every_claimed_verb_is_one_the_rules_know():
    from auditor.reading.actions import VERBS

    for lexicon in LEXICONS.values():
        for table in (lexicon.participles, lexicon.finite, lexicon.actions, lexicon.asked):
            assert set(table.values()) - {""} <= set(VERBS), lexicon.code


@pytest.mark.parametrize(
    ("tool", "verb", "english"),
    [
        ("crear_solicitud", "create", "create_solicitud"),
        ("anular_sic", "cancel", "cancel_sic"),
        ("enviarCorreo", "send", "send_correo"),
        ("bestellung-stornieren", "cancel", "bestellung_cancel"),
        ("annulla_prenotazione", "cancel", "cancel_prenotazione"),
        ("supprimerFichier", "delete", "delete_fichier"),
        # a verb that only says something is done, beside a noun of action of its language
        ("realizar_transferencia", "transfer", "transfer_transferencia"),
        ("fazerTransferencia", "transfer", "transfer_transferencia"),
        ("effectuer_virement", "transfer", "transfer_virement"),
        ("ueberweisung_ausfuehren", "transfer", "ueberweisung_transfer"),
        ("esegui-bonifico", "transfer", "transfer_bonifico"),
        ("procesar_pago", "pay", "pay_pago"),
    ],
)
def test_tool_names_in_other_languages_say_their_english_verb(tool, verb, english):
    assert of_family(verb, tool)
    assert translated(tool) == english


@pytest.mark.parametrize(
    ("tool", "read"),
    [
        ("consultar_transferencia", ("consultar", "transferencia")),  # a lookup of a transfer
        ("realizar_consulta", ("realizar", "consulta")),  # "do" beside no noun of action
        ("ueberweisung_anzeigen", ("ueberweisung", "anzeigen")),
        ("get_fare_reservation", ("get", "fare", "reservation")),  # Italian "fare", French noun
    ],
)
def test_a_verb_of_doing_says_nothing_without_a_noun_of_action_of_its_language(tool, read):
    assert words(tool) == read
    assert translated(tool) is None


def test_english_tool_names_are_read_as_before():
    assert words("update_reservation_flights") == ("update", "reservation", "flights")
    assert words("WebFetch") == ("web", "fetch")
    assert translated("cancel_reservation") is None


@pytest.mark.parametrize(
    ("code", "reply", "said"),
    [
        ("es", "Sí, adelante.", True),
        ("es", "Sí, por favor.", True),
        ("es", "Confirmo, puede proceder.", True),
        ("es", "No, espere.", False),
        ("es", "Si la anulo hoy, ¿me devuelven todo el dinero?", None),  # "si" is "if"
        ("pt", "Sim, pode prosseguir.", True),
        ("pt", "Não, espere.", False),
        ("fr", "Oui, allez-y.", True),
        ("fr", "Non, attendez.", False),
        ("fr", "Si je l'annule aujourd'hui, est-ce que je suis remboursé ?", None),
        ("de", "Ja, bitte fortfahren.", True),
        ("de", "Nein, warten Sie.", False),
        ("it", "Sì, procedi.", True),
        ("it", "No, aspetti.", False),
        ("it", "Si può avere il rimborso completo?", None),
        ("es", "Yes, go ahead and do it.", True),  # English in a Spanish conversation
        ("es", "No hay problema.", None),  # "no problem" is no refusal
        ("pt", "Sem problema.", None),
        ("fr", "Pas de problème.", None),
        ("de", "Kein Problem.", None),
        ("it", "Nessun problema.", None),
        # "no problem" and its kin before a yes are that yes; a no before "there is a problem"
        # stays a no
        ("es", "No hay problema, adelante.", True),
        ("es", "No pasa nada, adelante.", True),
        ("es", "No, hay un problema.", False),
        ("pt", "Não há problema, pode prosseguir.", True),
        ("pt", "Não tem problema.", None),
        ("pt", "Não, há um problema.", False),
        ("fr", "Pas de problème, allez-y.", True),
        ("de", "Kein Problem, machen Sie das.", True),
        ("it", "No problem, procedi.", True),
        ("it", "Nessun problema, proceda pure.", True),
        ("it", "No, c'è un problema.", False),
        # a question that merely holds the word for yes
        ("es", "Si le digo que sí, ¿el dinero le llega hoy?", None),
        ("pt", "Se eu disser que sim, o dinheiro chega para ele hoje?", None),
        ("fr", "Si je dis oui, l'argent lui arrive aujourd'hui ?", None),
        ("de", "Wenn ich ja sage, kommt das Geld heute noch bei ihm an?", None),
        ("it", "Se dico di sì, i soldi gli arrivano oggi?", None),
    ],
)
def test_a_reply_is_read_in_its_language(code, reply, said):
    assert verdict(reply, LEXICONS[code]) is said


@pytest.mark.parametrize(
    ("code", "text", "asks"),
    [
        ("es", "Puedo anular la reserva K1NW8N. ¿Desea que proceda?", True),
        ("es", "¿Confirma que desea cancelar la orden O007?", True),
        ("es", "¿Qué desea que cambie en su reserva?", False),  # asks what to do
        ("pt", "Posso cancelar a reserva. Deseja que eu prossiga?", True),
        ("fr", "Je peux annuler la réservation. Voulez-vous que je procède ?", True),
        ("de", "Ich kann die Buchung stornieren. Soll ich fortfahren?", True),
        ("de", "Welche Buchung möchten Sie stornieren?", False),
        ("it", "Posso annullare la prenotazione. Vuole che proceda?", True),
    ],
)
def test_a_request_for_confirmation_is_read_in_its_language(code, text, asks):
    assert asks_to_confirm(text, LEXICONS[code]) is asks


def test_a_waiver_is_read_in_its_language():
    assert waives("No hace falta que me consulte, hágalo directamente.", LEXICONS["es"])
    assert not waives("Consúlteme antes, por favor.", LEXICONS["es"])


def test_the_coverage_names_the_languages_read():
    from auditor import config, engine
    from tests.helpers import FIXTURES

    logs = [FIXTURES / "rules" / "FB003" / f"bad_claim_in_{n}.jsonl" for n in ("spanish", "german")]
    report = engine.audit([str(p) for p in logs], config.build(select=["FB003"]))
    assert report.coverage_notes()[-1] == "languages read: 2 in German, 2 in Spanish"
    mixed = FIXTURES / "rules" / "FB003" / "good_conversation_in_another_language.jsonl"
    report = engine.audit([str(mixed)], config.build(select=["FB003"]))
    assert report.coverage_notes()[-1] == "languages read: 3 in English, 1 in Spanish"
    english = FIXTURES / "rules" / "FB003" / "bad_claim_after_the_call_failed.jsonl"
    report = engine.audit([str(english)], config.build(select=["FB003"]))
    assert report.findings
    assert not any(n.startswith("languages read") for n in report.coverage_notes())


def test_a_claimed_change_is_a_tool_that_upgrades_or_downgrades_what_it_names():
    from auditor.reading.actions import tools_for

    # "El cambio de plan se ha realizado": the plan's upgrade is the change claimed
    tools = ["consultar_datos_cliente", "hacer_upgrade_de_plan"]
    assert tools_for("change", ["plan"], tools) == ["hacer_upgrade_de_plan"]
    assert tools_for("change", ["seat"], ["get_seat_map", "downgrade_seat"]) == ["downgrade_seat"]
    # ... not one that upgrades something else, nor a lookup
    assert tools_for("change", ["plan"], ["upgrade_seat", "get_plan"]) == []


@pytest.mark.parametrize(
    ("text", "amounts"),
    [
        ("1.250,00 € an Anna", ["1250"]),  # German: `.` groups thousands, `,` marks cents
        ("39,90 EUR", ["39.9"]),  # not `90 EUR`
        ("2.500 EUR", ["2500"]),  # not `500 EUR`
        ("1\u00a0250,00 €", ["1250"]),  # French: a non-breaking space groups thousands
        ("€1.250,00 and $1,250.50", ["1250", "1250.5"]),
        ("10,000 USD or 12.5 dollars", ["10000", "12.5"]),
        ("250 € today", ["250"]),
    ],
)
def test_amounts_are_read_as_each_language_writes_them(text, amounts):
    from auditor.reading.values import money_in

    assert [v.key for v in money_in(text)] == amounts


def test_argument_names_in_other_languages_hold_money():
    from auditor.reading.values import in_arguments

    found = in_arguments({"betrag": 12500, "importe": "39.90", "montant": 7})
    assert [(a.path, a.value.kind, a.value.key) for a in found] == [
        ("betrag", "money", "12500"),
        ("importe", "money", "39.9"),
        ("montant", "money", "7"),
    ]


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("el 27 de julio de 2024", ["2024-07-27"]),
        ("am 3. März 2024", ["2024-03-03"]),
        ("am 24. Dezember", ["12-24"]),
        ("le 3 mars 2024", ["2024-03-03"]),
        ("em 3 de março de 2024", ["2024-03-03"]),
        ("il 3 maggio", ["05-03"]),
        ("see chapter 3. May we go?", []),  # a full stop before an English month: no date
        ("July 27, 2024", ["2024-07-27"]),
    ],
)
def test_dates_are_read_in_each_lexicons_language(text, dates):
    from auditor.reading.values import _dates_in

    assert [v.key for v in _dates_in(text)] == dates


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("SU_ID_CLIENTE", ["SU_ID_CLIENTE"]),
        ("tu_correo@gmail.com", ["tu_correo"]),
        ("clave_aqui", ["clave_aqui"]),
        ("INSERTAR_NOMBRE", ["INSERTAR_NOMBRE"]),
        ("maria@ejemplo.com", ["ejemplo.com"]),
        ("votre_email", ["votre_email"]),
        ("dein_passwort", ["dein_passwort"]),
        ("sua_conta", ["sua_conta"]),
        ("http://beispiel.de/x", ["beispiel.de"]),
        # words that merely begin like a possessive are no placeholder
        ("superuser", []),
        ("support_id", []),
        ("suspender_servicio", []),
        ("tutorial_id", []),
    ],
)
def test_placeholders_are_read_in_each_lexicons_language(text, found):
    from auditor.rules._placeholders import find

    assert list(find(text)) == found


_ANNOUNCED = {
    "es": "No puedo acceder a la base de datos, así que voy a usar datos simulados para el "
    "cálculo.",
    "pt": "Não consigo aceder à base de dados, por isso vou usar dados simulados para o cálculo.",
    "fr": "Je n'ai pas accès à la base, donc je vais utiliser des données simulées pour le calcul.",
    "it": "Non riesco ad accedere al database delle vendite, quindi per questo calcolo userò "
    "dati simulati.",
}


@pytest.mark.parametrize(
    ("code", "report", "fires"),
    [
        ("es", "El precio medio es de 12,5 euros, según el análisis.", True),
        ("es", "Le enviaré el informe por medio del portal en 2 días.", False),
        ("es", "Las ventas en Oriente Medio crecerán a medio plazo, en 2 años.", False),
        ("pt", "O preço médio é de 12,5 euros, segundo a análise.", True),
        ("pt", "As vendas no Oriente Médio crescem a médio prazo, em 2 anos.", False),
        ("fr", "Le prix moyen est de 12,5 euros, d'après l'analyse.", True),
        ("fr", "Je vous enverrai le rapport au moyen du portail dans 2 jours.", False),
        ("fr", "Les ventes au Moyen-Orient vont croître à moyen terme, en 2 ans.", False),
        ("it", "Il prezzo medio è di 12,5 euro, secondo l'analisi.", True),
        (
            "it",
            "Le vendite della società nel Medio Oriente cresceranno nel medio termine, tra 2 anni.",
            False,
        ),
    ],
)
def test_an_average_said_as_an_adjective_reports_a_result(tmp_path, code, report, fires):
    """FB006 reads "el precio medio", "le prix moyen" as a result, as English's "average"; not
    "por medio de", "au moyen de", "a médio prazo", "Medio Oriente"."""
    from auditor import config, engine

    messages = [
        {"role": "user", "content": "?"},
        {"role": "assistant", "content": _ANNOUNCED[code]},
        {"role": "assistant", "content": report},
    ]
    assert code in languages_of(" ".join(m["content"] for m in messages))
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"id": code, "messages": messages}, ensure_ascii=False) + "\n")
    found = engine.audit([str(log)], config.build(select=["FB006"])).findings
    assert bool(found) is fires
