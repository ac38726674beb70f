"""Portuguese: "foi cancelada", "foram enviados", "cancelei", "enviei"; "sim, pode prosseguir"."""

from auditor.languages.lexicon import Lexicon, table

LEXICON = Lexicon(
    code="pt",
    name="Portuguese",
    stopwords="""
        não você obrigado obrigada uma olá são é os do da dos das com seu sua meu minha em no
        na um pode também mais muito preciso quero isso está estou foi para por favor
    """,
    participles=table("""
        cancel: cancelad anulad
        send: enviad reenviad mandad encaminhad
        share: compartilhad partilhad
        post: publicad
        invite: convidad
        book: reservad
        schedule: agendad reagendad
        create: criad gerad registrad cadastrad
        delete: excluíd excluid apagad deletad
        remove: removid
        add: adicionad
        change: alterad mudad
        modify: modificad
        update: atualizad
        refund: reembolsad estornad
        transfer: transferid
        issue: emitid
        charge: cobrad
        activate: ativad
        deactivate: desativad
        restore: restaurad
        reset: redefinid
        restart: reiniciad
        purchase: comprad
        archive: arquivad
        approve: aprovad
        return: devolvid
        : realizad processad concluíd concluid efetuad finalizad executad aplicad
    """),
    finite=table("""
        cancel: cancelei anulei
        send: enviei reenviei mandei encaminhei
        book: reservei
        schedule: agendei reagendei
        create: criei gerei registrei cadastrei
        delete: excluí apaguei
        remove: removi
        add: adicionei
        change: alterei mudei
        modify: modifiquei
        update: atualizei
        refund: reembolsei estornei
        transfer: transferi
        pay: paguei
        purchase: comprei
        share: compartilhei
        activate: ativei
        deactivate: desativei
        : realizei processei efetuei concluí finalizei
    """),
    endings=r"(?:o|a|os|as)",
    auxiliary=r"foi|foram|já\s+foi",
    adverbs=r"corretamente|devidamente|também|agora|finalmente|realmente",
    hedges=r"se|quando|assim\s+que|depois|antes|até|embora|porque|pois|não|nunca|nem|nenhum"
    r"|nenhuma|poderia|posso|pode|podemos|deveria|deve|deverá|será|serão|já|caso|você|vocês"
    r"|o\s+senhor|a\s+senhora|sem|ainda",
    agent=r"por\s|pel[oa]s?\s",
    actions=table("""
        cancel: cancelamento
        book: reserva
        change: alteração mudança
        modify: modificação
        update: atualização
        pay: pagamento
        refund: reembolso estorno
        order: pedido
        purchase: compra
        transfer: transferência
        schedule: agendamento
    """),
    asked=table("""
        cancel: cancel anul
        send: envi mand
        book: reserv
        schedule: agend
        change: alterar altere alteração mudar mude mudança
        modify: modific
        update: atualiz
        delete: excluir exclua exclusão apag
        remove: remov
        add: adicion
        refund: reembols estorn
        transfer: transfer
        pay: pagar pague pagamento
        purchase: comprar compre compra
        create: criar crie cadastr
        order: pedido
    """),
    tool_words=table("""
        create: criar gerar
        register: registrar cadastrar
        cancel: cancelar anular cancelamento
        send: enviar mandar
        forward: encaminhar
        delete: excluir apagar deletar
        remove: remover
        add: adicionar
        change: alterar mudar
        modify: modificar
        update: atualizar
        book: reservar
        schedule: agendar reagendar
        pay: pagar
        refund: reembolsar estornar
        transfer: transferir
        share: compartilhar
        invite: convidar
        post: publicar
        purchase: comprar
        issue: emitir
        activate: ativar
        deactivate: desativar
        archive: arquivar
        approve: aprovar
        return: devolver
        edit: editar
        insert: inserir
        notify: notificar
        reply: responder
    """),
    doing="fazer realizar efetuar executar processar",
    yes=r"sim|claro|com\s+certeza|pode\s+(?:sim|prosseguir|continuar|seguir|fazer)|prossiga"
    r"|(?:está|tá)\s+(?:bem|certo|ótimo|correto)|certo|correto|exato|(?:eu\s+)?confirmo"
    r"|confirmado|isso\s+mesmo|ok|okay|de\s+acordo|beleza|pode\s+ser|vamos\s+(?:lá|em\s+frente)"
    r"|autorizo",
    no=r"n[ãa]o(?!\s+(?:(?:h[áa]|tem)\s+(?:problema|inconveniente)|faz\s+mal|se\s+preocupe))|ainda\s+não|espere|espera|aguarde|pare|melhor\s+não",
    asks=r"(?:deseja|quer|gostaria)\s+que\s|(?:deseja|quer)\s+(?:prosseguir|continuar|confirmar)"
    r"|gostaria\s+de\s+(?:prosseguir|continuar|confirmar)|(?:posso|devo)\s+prosseguir"
    r"|confirma\b|(?:pode|poderia)\s+confirmar|(?:está|tudo)\s+(?:correto|certo)\s*\?"
    r"|está\s+de\s+acordo|(?:responda|diga)\s+[\"«“]?sim\b",
    earlier=r"ontem|anteriormente|previamente|há\s+\S+\s+(?:dias|semanas|meses|horas)|em\s+\d{1,2}(?:\s+de\s+(?:janeiro|fevereiro|março|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro)|[/-]\d)|no\s+dia\s+\d|em\s+(?:janeiro|fevereiro|março|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro)",
    proceeded=r"acabei\s+de|acabamos\s+de|(?:já\s+)?procedi\s+(?:a|ao|à)",
    wh=r"qual|quais|quanto|quantos|quantas|quando|onde|como|o\s+que",
    waives=r"não\s+(?:é\s+)?(?:precisa|necessário)\s+(?:me\s+)?(?:perguntar|confirmar|consultar)"
    r"|sem\s+(?:me\s+)?(?:perguntar|confirmar|confirmação)",
    assumes=r"assumo|assumindo|suponho|supondo|suponhamos|hipot[ée]tic\w*|fict[íi]ci\w*|inventad\w*",
    made_up=r"(?:dados|valores|números|preços|registros|registos)\s+(?:\w+\s+)?(?:simulad[oa]s|fictíci[oa]s|inventad[oa]s|hipotétic[oa]s|sintétic[oa]s|fals[oa]s|de\s+exemplo|de\s+amostra)|(?:simul|invent)(?:ar|arei|aremos|o|amos)\s+(?:os\s+|uns\s+|alguns\s+)?(?:\w+\s+)?(?:dados|valores|números|preços)",
    invented=r"simulad[oa]s?|fictíci[oa]s?|inventad[oa]s?|hipotétic[oa]s?|sintétic[oa]s?|de\s+exemplo|não\s+(?:são\s+)?reais",
    results=r"resultado|total|resposta|probabilidade|percentagem|porcentagem|média|(?<!\ba\s)(?<!\bo\s)(?<!\bum\s)(?<!\bde\s)(?<!oriente\s)(?<!ensino\s)médio|soma|preço|custo|diferença|taxa",
    never=r"não|nunca|jamais|sem|em\s+vez\s+de|ao\s+invés\s+de|evitar",
    real=r"(?:dados|valores|números|preços|registros)\s+(?:\w+\s+)?(?:reais|oficiais|verdadeiros)",
    money_words="valor preco preço montante custo tarifa saldo",
    months=(
        "janeiro|fevereiro|março marco|abril|maio|junho|"
        "julho|agosto|setembro|outubro|novembro|dezembro"
    ),
    placeholders="""
        your: seu sua teu
        here: aqui
        insert: inserir substituir
        example: exemplo
    """,
)
