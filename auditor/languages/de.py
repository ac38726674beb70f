"""German: "wurde storniert", "ich habe die E-Mail gesendet"; "ja, bitte fortfahren".

The participle closes the clause, after what was acted on: up to `gap` words may stand between
the auxiliary and it. Only "ich habe", "wir haben" and "wurde(n)" are read: "Sie haben
storniert" is the user's own action, and "ist storniert" a state.
"""

from auditor.languages.lexicon import Lexicon, table

LEXICON = Lexicon(
    code="de",
    name="German",
    stopwords="""
        der das und ist nicht mit ich sie für auf ein eine bitte danke sind wir sehr die den
        dem des zu ihre ihr ihnen haben habe wurde auch kann noch
    """,
    participles=table("""
        cancel: storniert annulliert abgesagt
        send: gesendet gesandt versendet versandt verschickt geschickt
        forward: weitergeleitet
        share: geteilt
        book: gebucht reserviert umgebucht
        create: erstellt angelegt eingerichtet registriert
        delete: gelöscht
        remove: entfernt
        add: hinzugefügt
        change: geändert
        modify: modifiziert
        update: aktualisiert
        transfer: überwiesen
        refund: erstattet rückerstattet zurückerstattet
        issue: ausgestellt
        pay: bezahlt gezahlt
        charge: belastet
        activate: aktiviert
        deactivate: deaktiviert
        reset: zurückgesetzt
        order: bestellt
        purchase: gekauft
        archive: archiviert
        restore: wiederhergestellt
        approve: genehmigt
        submit: eingereicht
        invite: eingeladen
        post: veröffentlicht
        : durchgeführt bearbeitet abgeschlossen ausgeführt erledigt verarbeitet vorgenommen
        : veranlasst
    """),
    finite={},
    endings=r"(?:)",
    auxiliary=r"habe|haben\s+wir|wir\s+haben|wurden?",
    adverbs=r"erfolgreich|soeben|jetzt|nun|auch|ebenfalls|gerade",
    hedges=r"wenn|falls|sobald|nachdem|bevor|bis|ob|weil|da|nicht|kein|keine|keinen|nie|niemals"
    r"|würde|würden|könnte|könnten|sollte|sollten|kann|können|muss|müssen|werde|wird|werden"
    r"|bereits|schon|von|ohne",
    agent=r"von\s",
    actions=table("""
        cancel: Stornierung Storno
        book: Buchung Reservierung
        change: Änderung Umbuchung
        pay: Zahlung
        refund: Erstattung Rückerstattung
        order: Bestellung
        transfer: Überweisung
        update: Aktualisierung
        purchase: Kauf
    """),
    asked=table("""
        cancel: storn absag annull
        send: send schick versend verschick
        book: buch reserv
        change: änder
        update: aktualis
        delete: lösch
        remove: entfern
        add: hinzufüg
        pay: bezahl
        refund: erstatt rückerstatt
        transfer: überweis
        order: bestell
        purchase: kauf
        create: erstell anleg
    """),
    tool_words=table("""
        cancel: stornieren storniere storno absagen annullieren
        send: senden sende versenden schicken verschicken
        forward: weiterleiten
        book: buchen reservieren umbuchen
        create: erstellen anlegen
        delete: loeschen löschen
        remove: entfernen
        add: hinzufuegen hinzufügen
        change: aendern ändern
        update: aktualisieren
        pay: bezahlen zahlen
        refund: erstatten
        transfer: ueberweisen überweisen
        order: bestellen
        purchase: kaufen
        share: teilen
        invite: einladen
        schedule: planen
        activate: aktivieren
        deactivate: deaktivieren
        archive: archivieren
        approve: genehmigen
    """),
    doing="ausfuehren ausführen durchfuehren durchführen taetigen tätigen vornehmen veranlassen",
    yes=r"ja|jawohl|genau|richtig|korrekt|einverstanden|in\s+ordnung|okay|ok|gerne?"
    r"|bitte\s+(?:fortfahren|durchführen|machen)|machen\s+sie\s+(?:das|es|weiter)"
    r"|fahren\s+sie\s+fort|(?:ich\s+)?bestätige|bestätigt|passt|stimmt|das\s+ist\s+(?:richtig|korrekt)"
    r"|ich\s+genehmige",
    no=r"nein|noch\s+nicht|warten\s+sie|warte|halt|stopp|lieber\s+nicht|auf\s+keinen\s+fall",
    asks=r"(?:soll|darf|kann)\s+ich\b[^.?!\n]{0,80}\?|möchten\s+sie\b[^.?!\n]{0,80}\?"
    r"|bestätigen\s+sie|(?:können|könnten)\s+sie\b[^.?!\n]{0,40}\bbestätigen"
    r"|ist\s+(?:das|dies|alles)\s+(?:so\s+)?(?:richtig|korrekt)|sind\s+sie\s+(?:damit\s+)?einverstanden"
    r"|mit\s+[\"„“]?ja\b",
    earlier=r"gestern|zuvor|vorher|vor\s+\S+\s+(?:Tagen|Wochen|Monaten|Stunden)|am\s+\d{1,2}\.(?:\s*(?:januar|februar|märz|april|mai|juni|juli|august|september|oktober|november|dezember)|\s*\d)|im\s+(?:januar|februar|märz|april|mai|juni|juli|august|september|oktober|november|dezember)",
    wh=r"welche[rsnm]?|was|wie\s+viele?|wann|wo|wie",
    waives=r"(?:keine|ohne)\s+(?:weitere\s+)?(?:rückfrage|bestätigung)"
    r"|(?:müssen|brauchen)\s+(?:mich\s+)?nicht\s+(?:zu\s+)?(?:fragen|nachfragen)"
    r"|(?:einfach|direkt)\s+(?:machen|durchführen)",
    gap=8,
    assumes=r"angenommen|nehme\s+ich\s+an|ich\s+nehme\s+an|hypothetisch\w*|fiktiv\w*|erfunden\w*",
    made_up=r"(?:simuliert|fiktiv|erfunden|hypothetisch|synthetisch|gefälscht)e[nrs]?\s+(?:\w+\s+)?(?:daten|werte|zahlen|preise|datensätze)|(?:beispiel|schein|dummy|fake)(?:daten|werte|zahlen)|(?:simulier|erfind)(?:e|en)\s+(?:ich\s+|wir\s+)?(?:die\s+|einige\s+)?(?:\w+\s+)?(?:daten|werte|zahlen|preise)",
    invented=r"simuliert\w*|fiktiv\w*|erfunden\w*|hypothetisch\w*|synthetisch\w*|beispieldaten|nicht\s+real\w*|nicht\s+echt\w*",
    results=r"ergebnis\w*|gesamt\w*|summe|antwort|wahrscheinlichkeit|anteil|durchschnitt\w*|mittelwert|preis|kosten|differenz|rate",
    never=r"nicht|nie|niemals|ohne|statt|anstatt|kein\w*|vermeiden",
    real=r"(?:echt|real|tatsächlich|offiziell)e[nrs]?\s+(?:\w+\s+)?(?:daten|werte|zahlen|preise)",
    money_words="betrag preis summe gesamtbetrag kosten gebuehr gebühr saldo",
    months=(
        "januar jänner|februar|märz maerz|april|mai|juni|"
        "juli|august|september|oktober|november|dezember"
    ),
    placeholders="""
        your: dein deine ihre
        insert: einfuegen einfügen ersetzen
        example: beispiel
    """,
)
