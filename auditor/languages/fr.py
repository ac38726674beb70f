"""French: "a été annulée", "j'ai envoyé", "nous avons créé"; "oui, allez-y"."""

from auditor.languages.lexicon import Lexicon, table

LEXICON = Lexicon(
    code="fr",
    name="French",
    stopwords="""
        les des une pour avec vous nous pas dans sur mais merci bonjour je oui très être le et
        est du au ce cette votre vos mon ma il elle qui ne sont à j'ai c'est s'il plaît
    """,
    participles=table("""
        cancel: annul
        send: envoy renvoy
        book: réserv
        create: cré enregistr
        delete: supprim effac
        add: ajout
        modify: modifi
        change: chang
        update: actualis
        refund: rembours
        transfer: transfér
        pay: pay
        charge: factur débit
        schedule: programm planifi
        activate: activ
        deactivate: désactiv
        reset: réinitialis
        restart: redémarr
        order: command
        purchase: achet
        archive: archiv
        restore: restaur
        approve: approuv
        share: partag
        post: publi
        invite: invit
        return: retourn
        remove: retir
        : effectu trait termin finalis réalis exécut appliqu
    """),
    finite={"mis à jour": "update", "mise à jour": "update", "émis": "issue", "émise": "issue"},
    endings=r"(?:é|ée|és|ées)",
    auxiliary=r"(?:a|ont)\s+(?:bien\s+)?été|j['’]ai|nous\s+avons|je\s+(?:vous|lui|leur|l['’])\s*ai"
    r"|nous\s+(?:vous|lui|leur|l['’])\s*avons",
    adverbs=r"bien|correctement|également|aussi|maintenant|finalement|désormais|(?:tout\s+)?juste",
    hedges=r"si|s['’]|quand|lorsque|lorsqu['’]|dès\s+que|une\s+fois|après|avant|jusqu['’]"
    r"|sauf|puisque|parce|car|ne|pas|n['’]|jamais|aucun|aucune|pourrait|pourrais|pourrions"
    r"|pourriez|devrait|devrais|peut|peux|pouvez|pouvons|déjà|sera|seront|sans",
    agent=r"par\s",
    actions=table("""
        cancel: annulation
        book: réservation
        modify: modification
        change: changement
        pay: paiement
        refund: remboursement
        order: commande
        purchase: achat
        transfer: virement transfert
    """),
    asked=table("""
        cancel: annul
        send: envoi envoy
        book: réserv
        modify: modifi
        change: chang
        delete: supprim
        refund: rembours
        pay: payer paiement payez
        order: command
        purchase: achet achat
        add: ajout
        remove: retir
        transfer: transfér virement
        create: créer créez création
    """),
    tool_words=table("""
        cancel: annuler annulation
        send: envoyer
        create: creer créer
        delete: supprimer effacer
        add: ajouter
        modify: modifier
        change: changer
        update: actualiser
        refund: rembourser
        book: reserver réserver
        pay: payer
        order: commander
        purchase: acheter
        share: partager
        invite: inviter
        post: publier
        transfer: transferer transférer
        schedule: planifier programmer
        activate: activer
        deactivate: desactiver désactiver
        archive: archiver
        restore: restaurer
        approve: approuver
        remove: retirer
        register: enregistrer
        submit: soumettre
    """),
    doing="effectuer faire executer exécuter realiser réaliser traiter",
    yes=r"oui|ouais|d['’]accord|ok|okay|bien\s+sûr|exactement|c['’]est\s+(?:correct|bon"
    r"|exact|parfait|ça)|allez-y|allez\s+y|vas-y|(?:je\s+)?confirme|confirmé|absolument"
    r"|volontiers|tout\s+à\s+fait|ça\s+me\s+va|procédez|faites-le|entendu|j['’]autorise",
    no=r"non|pas\s+encore|attendez|attends|stop|arrêtez|surtout\s+pas",
    asks=r"voulez-vous|souhaitez-vous|désirez-vous|(?:dois|puis)-je\b|confirmez(?:-vous)?\b"
    r"|(?:pouvez|pourriez)-vous\s+(?:me\s+)?confirmer|êtes-vous\s+d['’]accord"
    r"|(?:cela|ceci)\s+vous\s+convient|(?:est-ce|c['’]est)\s+(?:bien\s+)?correct\s*\?"
    r"|je\s+procède\s*\?|(?:répondez|dites)\s+[\"«“]?\s*oui\b",
    earlier=r"hier|précédemment|auparavant|il\s+y\s+a\s+\S+\s+(?:jours|semaines|mois|heures)|(?<!pour\s)le\s+\d{1,2}(?:\s+(?:janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre)|[/-]\d)|en\s+(?:janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre)",
    proceeded=r"je\s+viens\s+d[e'’]|nous\s+venons\s+d[e'’]|j['’]ai\s+procédé\s+à",
    wh=r"quel|quelle|quels|quelles|combien|quand|où|comment|que|qu['’]",
    waives=r"pas\s+besoin\s+de\s+(?:me\s+)?(?:demander|confirmer|vérifier)"
    r"|sans\s+(?:me\s+)?(?:demander|confirmation)|inutile\s+de\s+(?:me\s+)?(?:demander|confirmer)",
    assumes=r"suppos(?:e|ons|ant|é|ée|és|ées)|hypoth[ée]tique\w*|fictif|fictive\w*|fictifs|invent[ée]e?s?",
    made_up=r"(?:données|valeurs|chiffres|prix|enregistrements)\s+(?:\w+\s+)?(?:simulées|simulés|fictives|fictifs|inventées|inventés|hypothétiques|synthétiques|factices|d'exemple)|(?:simul|invent)(?:er|erai|erons|ons|e)\s+(?:les\s+|des\s+|quelques\s+)?(?:\w+\s+)?(?:données|valeurs|chiffres|prix)",
    invented=r"simulée?s?|fictive?s?|fictifs?|inventée?s?|hypothétiques?|synthétiques?|factices?|d'exemple|(?:ne\s+sont\s+)?pas\s+réel(?:le)?s",
    results=r"résultat|total|réponse|probabilité|pourcentage|moyenne|(?<!\bau\s)(?<!\ble\s)(?<!\bun\s)(?<!\bdu\s)(?<!\bce\s)(?<!\bà\s)moyen(?![\s-]+(?:orient|âge|terme))|somme|prix|coût|différence|taux",
    never=r"ne|pas|jamais|sans|au\s+lieu\s+de|plutôt\s+que|éviter",
    real=r"(?:données|valeurs|chiffres|prix)\s+(?:\w+\s+)?(?:réelles|réels|officielles|officiels|véritables)",
    money_words="montant prix cout coût frais solde tarif",
    months=(
        "janvier|février fevrier|mars|avril|mai|juin|"
        "juillet|août aout|septembre|octobre|novembre|décembre decembre"
    ),
    placeholders="""
        your: votre
        here: ici
        insert: inserer insérer remplacer
        example: exemple
    """,
)
