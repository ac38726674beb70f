"""Spanish: "se ha cancelado", "ha sido enviada", "he creado", "cancelé"; "sí, adelante"."""

from auditor.languages.lexicon import Lexicon, table

LEXICON = Lexicon(
    code="es",
    name="Spanish",
    stopwords="""
        el los las del una está están gracias pero más muy necesito quiero hola usted ustedes
        sus también puede favor y con su mi le al hay fue ser son esto eso cuando ahora sí
        para por que como
    """,
    participles=table("""
        cancel: cancelad anulad
        send: enviad reenviad mandad
        share: compartid
        post: publicad
        invite: invitad
        book: reservad
        schedule: programad agendad reprogramad
        create: cread generad registrad
        delete: eliminad borrad
        add: agregad añadid
        remove: quitad
        change: cambiad
        modify: modificad
        update: actualizad
        upgrade: mejorad
        refund: reembolsad
        transfer: transferid
        issue: emitid
        pay: pagad
        charge: cobrad
        purchase: comprad
        activate: activad
        deactivate: desactivad
        suspend: suspendid
        reset: restablecid
        restart: reiniciad
        archive: archivad
        restore: restaurad
        approve: aprobad
        : realizad procesad completad efectuad finalizad tramitad ejecutad aplicad
    """),
    finite=table("""
        cancel: cancelé anulé
        send: envié reenvié mandé
        book: reservé
        schedule: programé agendé reprogramé
        create: creé generé registré
        delete: eliminé borré
        add: agregué añadí
        remove: quité
        change: cambié
        modify: modifiqué
        update: actualicé
        refund: reembolsé
        transfer: transferí
        pay: pagué
        purchase: compré
        activate: activé
        deactivate: desactivé
        share: compartí
        issue: emití
        : realicé procesé efectué completé tramité
    """),
    endings=r"(?:o|a|os|as)",
    auxiliary=r"se\s+(?:les?\s+|lo\s+|la\s+)?han?|han?\s+sido|han?\s+quedado|he|hemos|(?:les?|los?|las?)\s+(?:he|hemos)",
    adverbs=r"exitosamente|correctamente|satisfactoriamente|debidamente|también|finalmente"
    r"|completamente|ahora",
    hedges=r"si|cuando|una\s+vez|antes|después|hasta|aunque|porque|ya|puesto\s+que|no|nunca|ni"
    r"|jamás|aún|todavía|podría|podríamos|puedo|puede|pueda|podemos|debería|debe|deberá"
    r"|tendrá|quizás?|tal\s+vez|usted|ustedes|en\s+caso|siempre\s+que|para\s+que|sin",
    agent=r"por\s",
    actions=table("""
        change: cambio cambios
        cancel: cancelación anulación
        book: reserva reservación
        pay: pago
        refund: reembolso devolución
        modify: modificación
        update: actualización
        purchase: compra
        order: pedido orden
        transfer: transferencia
        upgrade: mejora upgrade
    """),
    asked=table("""
        cancel: cancel anul
        send: envi mand reenvi
        book: reserv
        schedule: programar programe agend reprogram
        create: crear cree creación registr
        delete: elimin borr
        add: agreg añad
        remove: quitar quite quita
        change: cambi
        modify: modific
        update: actualiz
        upgrade: upgrade
        refund: reembols devol
        transfer: transfer
        pay: pag
        purchase: comprar compre compra
        order: pedido
    """),
    tool_words=table("""
        create: crear generar
        register: registrar
        cancel: cancelar anular cancelacion anulacion
        send: enviar mandar
        forward: reenviar
        delete: eliminar borrar
        update: actualizar
        modify: modificar
        change: cambiar
        add: agregar anadir
        remove: quitar
        book: reservar
        schedule: agendar programar reprogramar
        pay: pagar
        refund: reembolsar
        transfer: transferir
        share: compartir
        post: publicar
        invite: invitar
        activate: activar
        deactivate: desactivar
        suspend: suspender
        purchase: comprar
        archive: archivar
        restore: restaurar
        approve: aprobar
        return: devolver
        edit: editar
        insert: insertar
        notify: notificar
        issue: emitir
    """),
    doing="realizar ejecutar efectuar hacer procesar tramitar",
    yes=r"s[íi](?=\s*[,.!;]|\s*$|\s+(?:por\s+favor|claro|adelante|confirmo|gracias|proceda|está"
    r"|de\s+acuerdo|correcto|perfecto|es\s+correcto))|claro(?:\s+que\s+s[íi])?|por\s+supuesto"
    r"|adelante|de\s+acuerdo|vale|correcto|exacto|(?:lo\s+)?confirmo|confirmado"
    r"|proceda|procede|prosiga|hágalo|hazlo|está\s+bien|me\s+parece\s+bien"
    r"|todo\s+(?:está\s+)?(?:bien|correcto)|ok|okay|dale|autorizo",
    no=r"no(?!\s+(?:hay\s+(?:problema|inconveniente)|pasa\s+nada|se\s+preocupe|te\s+preocupes))|espere|espera|todavía\s+no|aún\s+no|mejor\s+no"
    r"|deténgase|detente",
    asks=r"(?:desea|quiere|prefiere)\s+que\s|(?:desea|quiere)\s+(?:proceder|continuar|confirmar)"
    r"|(?:me\s+)?confirma\b|(?:podría|puede)\s+confirmar|confírme(?:me|lo|la)?\b|confirme\b"
    r"|está\s+de\s+acuerdo|procedo\b|procedemos\b|le\s+parece\s+bien|(?:es|son)\s+correct[oa]s?\s*\?"
    r"|(?:responda|conteste|diga)\s+[\"«“]?s[íi]\b",
    earlier=r"ayer|anteriormente|previamente|el\s+pasado|hace\s+\S+\s+(?:días|semanas|meses|horas)|(?<!para\s)el\s+(?:día\s+)?\d{1,2}(?:\s+de\s+(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre)|[/-]\d)|en\s+(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre)",
    proceeded=r"(?:he|hemos)\s+procedido\s+a|acabo\s+de|acabamos\s+de",
    wh=r"qué|cuál|cuáles|cuánto|cuántos|cuántas|cuándo|dónde|cómo",
    waives=r"no\s+(?:es\s+)?(?:necesario|hace\s+falta)\s+(?:que\s+)?(?:me\s+)?"
    r"(?:consult|pregunt|confirm)|sin\s+(?:preguntar|consultar|confirmar)(?:me)?"
    r"|(?:hágalo|hazlo)\s+directamente",
    assumes=r"asum[oi]\w*|asumamos|supongo|suponiendo|supongamos|hipot[ée]tic\w*|fictici\w*|inventad\w*",
    made_up=r"(?:datos|valores|cifras|precios|registros|números)\s+(?:\w+\s+)?(?:simulad[oa]s|fictici[oa]s|inventad[oa]s|hipotétic[oa]s|sintétic[oa]s|fals[oa]s|de\s+ejemplo|de\s+muestra)|(?:simul|invent)(?:ar|aré|aremos|emos|o|amos)\s+(?:los\s+|unos\s+|algunos\s+)?(?:\w+\s+)?(?:datos|valores|cifras|precios)",
    invented=r"simulad[oa]s?|fictici[oa]s?|inventad[oa]s?|hipotétic[oa]s?|sintétic[oa]s?|de\s+ejemplo|no\s+(?:son\s+)?reales",
    results=r"resultado|total|respuesta|probabilidad|porcentaje|promedio|media|(?<!\bpor\s)(?<!\ben\s)(?<!\ba\s)(?<!\bde\s)(?<!\bdel\s)(?<!\bal\s)(?<!\bel\s)(?<!\bun\s)(?<!oriente\s)medio|suma|precio|costo|coste|diferencia|tasa",
    never=r"no|nunca|jamás|sin|en\s+lugar\s+de|en\s+vez\s+de|evitar",
    real=r"(?:datos|valores|cifras|precios|registros)\s+(?:\w+\s+)?(?:reales|oficiales|verdaderos)",
    money_words="importe monto precio costo coste tarifa saldo cargo",
    months=(
        "enero|febrero|marzo|abril|mayo|junio|"
        "julio|agosto|septiembre setiembre|octubre|noviembre|diciembre"
    ),
    placeholders="""
        your: tu su
        here: aqui aquí
        insert: insertar ingresar introducir reemplazar
        example: ejemplo
    """,
)
