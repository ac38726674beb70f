"""Italian: "è stata annullata", "ho inviato", "abbiamo creato"; "sì, procedi"."""

from auditor.languages.lexicon import Lexicon, table

LEXICON = Lexicon(
    code="it",
    name="Italian",
    stopwords="""
        che della non sono grazie gli ciao questo il lo di del per una con è ho vorrei mio mia
        suo sua anche può molto sì buongiorno
    """,
    participles=table("""
        cancel: annullat cancellat disdett
        send: inviat spedit mandat
        forward: inoltrat
        share: condivis
        post: pubblicat
        invite: invitat
        book: prenotat riservat
        create: creat generat registrat
        delete: eliminat
        remove: rimoss
        add: aggiunt
        modify: modificat
        change: cambiat
        update: aggiornat
        refund: rimborsat
        transfer: trasferit
        issue: emess
        pay: pagat
        charge: addebitat
        schedule: programmat pianificat
        activate: attivat
        deactivate: disattivat
        suspend: sospes
        restore: ripristinat
        reset: reimpostat
        restart: riavviat
        order: ordinat
        purchase: acquistat
        archive: archiviat
        approve: approvat
        return: restituit
        : effettuat elaborat completat eseguit processat finalizzat applicat realizzat
    """),
    finite={},
    endings=r"(?:o|a|i|e)",
    auxiliary=r"(?:è|e['’]|é)\s+stat[oaie]|sono\s+stat[ie]|ho|abbiamo|l['’]\s*ho|l['’]\s*abbiamo"
    r"|(?:li|le|gli|ti|vi|ve\s+lo|glielo|gliela)\s+(?:ho|abbiamo)",
    adverbs=r"correttamente|anche|ora|appena|finalmente|regolarmente",
    hedges=r"se|quando|(?<!ho\s)(?<!abbiamo\s)appena|una\s+volta|dopo|prima|finché|fino|sebbene|perché|poiché|non|mai"
    r"|nessun|nessuna|potrebbe|potrei|potremmo|può|posso|possiamo|dovrebbe|deve|dovrà|sarà"
    r"|saranno|già|senza",
    agent=r"da\s|dal\s|dall['’]|dalla\s|dai\s|dalle\s|dallo\s",
    actions=table("""
        cancel: cancellazione annullamento disdetta
        book: prenotazione
        modify: modifica
        change: cambio
        pay: pagamento
        refund: rimborso
        order: ordine
        purchase: acquisto
        transfer: bonifico trasferimento
        update: aggiornamento
    """),
    asked=table("""
        cancel: annull cancell disdi
        send: invi mand sped
        book: prenot
        modify: modific
        change: cambi
        update: aggiorn
        delete: elimin
        remove: rimuov
        add: aggiung
        refund: rimbors
        pay: pagare pagamento paghi
        transfer: trasfer bonific
        order: ordin
        purchase: acquist
        create: creare creazione
    """),
    tool_words=table("""
        cancel: annulla annullare cancella cancellare disdici disdire
        create: crea creare
        send: invia inviare spedisci spedire
        forward: inoltra
        delete: elimina eliminare
        add: aggiungi aggiungere
        modify: modifica modificare
        update: aggiorna aggiornare
        change: cambia cambiare
        book: prenota prenotare
        refund: rimborsa rimborsare
        pay: paga pagare
        transfer: trasferisci trasferire
        order: ordina ordinare
        purchase: acquista acquistare
        share: condividi condividere
        remove: rimuovi rimuovere
        register: registra registrare
        approve: approva approvare
    """),
    doing="esegui eseguire effettua effettuare fai fare",
    yes=r"s[ìi](?=\s*[,.!;]|\s*$|\s+(?:grazie|procedi|proceda|va\s+bene|confermo|certo|è\s+corretto))"
    r"|certo|certamente|va\s+bene|d['’]accordo|ok|okay|esatto|(?:lo\s+)?confermo"
    r"|confermato|procedi|proceda|prosegui|prosegua|vai\s+pure|vada\s+pure|fallo|lo\s+faccia"
    r"|assolutamente|volentieri|corretto|giusto|è\s+corretto|autorizzo",
    no=r"no(?!\s+problem)|non\s+ancora|aspetta|aspetti|fermati|si\s+fermi|stop|meglio\s+di\s+no",
    asks=r"(?:vuole|desidera|vuoi)\s+che\s|(?:vuole|desidera|vuoi)\s+(?:procedere|continuare"
    r"|confermare)|(?:posso|devo)\s+procedere|procedo\s*\?|conferma\b|confermi\b"
    r"|(?:può|potrebbe|puoi)\s+confermare|è\s+(?:tutto\s+)?corretto\s*\?|va\s+bene\s*\?"
    r"|è\s+d['’]accordo|rispond[ai]\s+[\"«“]?s[ìi]\b",
    earlier=r"ieri|precedentemente|in\s+precedenza|\S+\s+(?:giorni|settimane|mesi|ore)\s+fa|(?<!per\s)il\s+\d{1,2}(?:\s+(?:gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre|dicembre)|[/-]\d)|a\s+(?:gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre|dicembre)|in\s+(?:gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre|dicembre)",
    proceeded=r"ho\s+(?:appena\s+)?(?:proceduto|provveduto)\s+ad?|abbiamo\s+(?:proceduto|provveduto)\s+ad?",
    wh=r"quale|quali|quanto|quanti|quante|quando|dove|come|che\s+cosa|cosa",
    waives=r"non\s+(?:c['’]è\s+)?(?:bisogno|serve)\s+(?:di\s+)?(?:chiedermi|chiedere|confermare)"
    r"|senza\s+(?:chiedere|conferma)",
    assumes=r"suppon\w*|supponiamo|presumo|ipotetic\w*|fittizi\w*|inventat\w*",
    made_up=r"(?:dati|valori|numeri|prezzi|record)\s+(?:\w+\s+)?(?:simulati|fittizi|inventati|ipotetici|sintetici|falsi|di\s+esempio)|(?:simul|invent)(?:are|erò|eremo|iamo|o)\s+(?:i\s+|dei\s+|alcuni\s+)?(?:\w+\s+)?(?:dati|valori|numeri|prezzi)",
    invented=r"simulat[oiae]|fittizi[oae]?|inventat[oiae]|ipotetic[oiah]e?|sintetic[oiah]e?|di\s+esempio|non\s+(?:sono\s+)?reali",
    results=r"risultato|totale|risposta|probabilità|percentuale|media|(?<!\bin\s)(?<!\bil\s)(?<!\bun\s)(?<!\bdi\s)(?<!\bdel\s)(?<!\bal\s)(?<!\bnel\s)(?<!\bsul\s)(?<!\bdal\s)(?<!\bper\s)medio(?!\s+(?:oriente|termine|periodo))|somma|prezzo|costo|differenza|tasso",
    never=r"non|mai|senza|invece\s+di|anziché|evitare",
    real=r"(?:dati|valori|numeri|prezzi)\s+(?:\w+\s+)?(?:reali|ufficiali|veri)",
    money_words="importo prezzo totale costo tariffa saldo somma",
    months=(
        "gennaio|febbraio|marzo|aprile|maggio|giugno|"
        "luglio|agosto|settembre|ottobre|novembre|dicembre"
    ),
    placeholders="""
        your: tuo tua vostro vostra
        here: qui
        insert: inserire sostituire
        example: esempio
    """,
)
